import CardboxImageDecoding
import Foundation

// The image worker: libvips in a process of its own (see `ImageWorkers`).
exit(ImageWorkerService.main(arguments: Array(CommandLine.arguments.dropFirst())))
