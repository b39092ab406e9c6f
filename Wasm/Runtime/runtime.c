// What Embedded Swift asks of its platform, for the browser's replica module (wasm32, no libc):
// memory (an allocator over the module's own linear memory, which it at least doubles when full),
// the C memory functions, 128-bit multiplication (Double's shortest printing uses it), rounding
// half away from zero, random bytes for hashing, and reading decimal numbers. The last two come
// from the page: `crypto.getRandomValues` and JavaScript's `Number`, which round a decimal to the
// nearest double as C's strtod does.

typedef unsigned long size_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

__attribute__((import_module("env"), import_name("fillRandom"))) void cardbox_fill_random(void *bytes, size_t count);
__attribute__((import_module("env"), import_name("parseNumber"))) double cardbox_parse_number(const char *text,
                                                                                             size_t length);

extern unsigned char __heap_base;

// Memory: blocks of 2^n bytes (n ≥ 4), one free list per size, never given back to the page. A
// block starts with its size class and the offset to the pointer handed out, so `free` finds both.
#define SIZE_CLASSES 32
static void *free_blocks[SIZE_CLASSES];
static unsigned char *heap_top;
static unsigned char *heap_end;

static int size_class(size_t bytes) {
    int class = 4;
    while (class < SIZE_CLASSES && ((size_t)1 << class) < bytes) class++;
    return class;
}

static unsigned char *take_from_heap(size_t bytes) {
    if (!heap_top) {
        heap_top = &__heap_base;
        heap_end = (unsigned char *)(__builtin_wasm_memory_size(0) * 65536);
    }
    heap_top = (unsigned char *)(((size_t)heap_top + 15) & ~(size_t)15);
    if ((size_t)(heap_end - heap_top) < bytes) {
        // At least double: growing a page at a time made the engine move and account for its
        // memory thousands of times while a big account loaded.
        size_t needed = (bytes - (size_t)(heap_end - heap_top) + 65535) / 65536;
        size_t pages = __builtin_wasm_memory_size(0);
        if (pages < needed) pages = needed;
        if (__builtin_wasm_memory_grow(0, pages) == (size_t)-1) {
            pages = needed;
            if (__builtin_wasm_memory_grow(0, pages) == (size_t)-1) return 0;
        }
        heap_end += pages * 65536;
    }
    unsigned char *block = heap_top;
    heap_top += bytes;
    return block;
}

int posix_memalign(void **result, size_t alignment, size_t bytes) {
    if (alignment < 16) alignment = 16;
    if (bytes > ((size_t)1 << (SIZE_CLASSES - 2))) return 12;  // ENOMEM
    int class = size_class(bytes + alignment);
    unsigned char *block = free_blocks[class];
    if (block) {
        free_blocks[class] = *(void **)block;
    } else {
        block = take_from_heap((size_t)1 << class);
        if (!block) return 12;
    }
    unsigned char *pointer = (unsigned char *)(((size_t)block + 8 + alignment - 1) & ~(alignment - 1));
    ((uint32_t *)pointer)[-1] = (uint32_t)class;
    ((uint32_t *)pointer)[-2] = (uint32_t)(pointer - block);
    *result = pointer;
    return 0;
}

void free(void *pointer) {
    if (!pointer) return;
    int class = (int)((uint32_t *)pointer)[-1];
    unsigned char *block = (unsigned char *)pointer - ((uint32_t *)pointer)[-2];
    *(void **)block = free_blocks[class];
    free_blocks[class] = block;
}

void *malloc(size_t bytes) {
    void *pointer;
    return posix_memalign(&pointer, 16, bytes) == 0 ? pointer : 0;
}

// Bulk memory's instructions (memory.copy, memory.fill) rather than byte loops.
void *memcpy(void *destination, const void *source, size_t count) {
    __builtin_memcpy(destination, source, count);
    return destination;
}

void *memmove(void *destination, const void *source, size_t count) {
    __builtin_memmove(destination, source, count);
    return destination;
}

void *memset(void *destination, int value, size_t count) {
    __builtin_memset(destination, value, count);
    return destination;
}

int memcmp(const void *left, const void *right, size_t count) {
    const unsigned char *a = left, *b = right;
    for (size_t index = 0; index < count; index++) {
        if (a[index] != b[index]) return a[index] - b[index];
    }
    return 0;
}

size_t strlen(const char *text) {
    size_t length = 0;
    while (text[length]) length++;
    return length;
}

void arc4random_buf(void *bytes, size_t count) { cardbox_fill_random(bytes, count); }

// The low 128 bits of a 128-bit product, from 32-bit halves (wasm32 has no wider multiply).
typedef unsigned __int128 uint128_t;
uint128_t __multi3(uint128_t a, uint128_t b) {
    uint64_t a_low = (uint64_t)a, a_high = (uint64_t)(a >> 64);
    uint64_t b_low = (uint64_t)b, b_high = (uint64_t)(b >> 64);
    uint64_t a0 = a_low & 0xffffffff, a1 = a_low >> 32, b0 = b_low & 0xffffffff, b1 = b_low >> 32;
    uint64_t low_low = a0 * b0, low_high = a0 * b1, high_low = a1 * b0, high_high = a1 * b1;
    uint64_t middle = (low_low >> 32) + (low_high & 0xffffffff) + (high_low & 0xffffffff);
    uint64_t low = (low_low & 0xffffffff) | (middle << 32);
    uint64_t high = high_high + (low_high >> 32) + (high_low >> 32) + (middle >> 32) + a_low * b_high + a_high * b_low;
    return ((uint128_t)high << 64) | low;
}

// Swift's Double(String) asks this to read the whole text: it reports where reading stopped.
const char *_swift_stdlib_strtod_clocale(const char *text, double *result) {
    size_t length = strlen(text);
    double value = cardbox_parse_number(text, length);
    if (value != value) return text;  // NaN: the page could not read it
    *result = value;
    return text + length;
}

// Swift's `rounded()` (half away from zero) asks libm's round, which WebAssembly has no
// instruction for; truncation, absolute value and sign are instructions.
double round(double value) {
    double whole = __builtin_trunc(value);
    if (__builtin_fabs(value - whole) >= 0.5) whole += __builtin_copysign(1.0, value);
    return whole;
}
