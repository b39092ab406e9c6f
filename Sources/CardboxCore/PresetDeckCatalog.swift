extension PresetDeck {
    /// The preset decks `cardbox deck create --preset SLUG` can add.
    public static let catalog: [PresetDeck] = [spanishBasics, frenchBasics, germanBasics]

    static let spanishBasics = PresetDeck(
        slug: "spanish-basics",
        name: "Spanish Basics",
        frontLanguage: "es",
        backLanguage: "en",
        cards: [
            PresetCard(
                front: "el agua", back: "water",
                notes: "Quiero un vaso de agua. — I want a glass of water.", tags: ["noun", "food"]),
            PresetCard(
                front: "el pan", back: "bread",
                notes: "Compro pan todas las mañanas. — I buy bread every morning.", tags: ["noun", "food"]),
            PresetCard(
                front: "la manzana", back: "apple",
                notes: "La manzana es roja. — The apple is red.", tags: ["noun", "food"]),
            PresetCard(
                front: "el café", back: "coffee",
                notes: "Tomo un café con leche. — I have a coffee with milk.", tags: ["noun", "food"]),
            PresetCard(
                front: "la casa", back: "house",
                notes: "Mi casa es pequeña. — My house is small.", tags: ["noun", "place"]),
            PresetCard(
                front: "la ciudad", back: "city",
                notes: "Madrid es una ciudad grande. — Madrid is a big city.", tags: ["noun", "place"]),
            PresetCard(
                front: "la escuela", back: "school",
                notes: "Los niños van a la escuela. — The children go to school.", tags: ["noun", "place"]),
            PresetCard(
                front: "el amigo", back: "friend",
                notes: "Él es mi mejor amigo. — He is my best friend.", tags: ["noun", "people"]),
            PresetCard(
                front: "la familia", back: "family",
                notes: "Mi familia vive en México. — My family lives in Mexico.", tags: ["noun", "people"]),
            PresetCard(
                front: "el niño", back: "boy, child",
                notes: "El niño juega en el parque. — The boy is playing in the park.", tags: ["noun", "people"]),
            PresetCard(
                front: "la mujer", back: "woman",
                notes: "La mujer lee un libro. — The woman is reading a book.", tags: ["noun", "people"]),
            PresetCard(
                front: "el día", back: "day",
                notes: "Hoy es un buen día. — Today is a good day.", tags: ["noun", "time"]),
            PresetCard(
                front: "la noche", back: "night",
                notes: "Trabajo de noche. — I work at night.", tags: ["noun", "time"]),
            PresetCard(
                front: "la semana", back: "week",
                notes: "Trabajo cinco días a la semana. — I work five days a week.", tags: ["noun", "time"]),
            PresetCard(
                front: "hoy", back: "today",
                notes: "Hoy hace calor. — It is hot today.", tags: ["time"]),
            PresetCard(
                front: "mañana", back: "tomorrow",
                notes: "Nos vemos mañana. — See you tomorrow.", tags: ["time"]),
            PresetCard(
                front: "hola", back: "hello",
                notes: "Hola, ¿cómo estás? — Hello, how are you?", tags: ["greeting"]),
            PresetCard(
                front: "gracias", back: "thank you",
                notes: "Muchas gracias por tu ayuda. — Thank you very much for your help.", tags: ["greeting"]),
            PresetCard(
                front: "adiós", back: "goodbye",
                notes: "Adiós, hasta luego. — Goodbye, see you later.", tags: ["greeting"]),
            PresetCard(
                front: "por favor", back: "please",
                notes: "Un café, por favor. — A coffee, please.", tags: ["greeting"]),
            PresetCard(
                front: "comer", back: "to eat",
                notes: "Me gusta comer fruta. — I like to eat fruit.", tags: ["verb", "food"]),
            PresetCard(
                front: "hablar", back: "to speak",
                notes: "¿Hablas inglés? — Do you speak English?", tags: ["verb"]),
            PresetCard(
                front: "vivir", back: "to live",
                notes: "Vivo en Barcelona. — I live in Barcelona.", tags: ["verb"]),
            PresetCard(
                front: "tener", back: "to have",
                notes: "Tengo un perro. — I have a dog.", tags: ["verb"]),
            PresetCard(
                front: "ir", back: "to go",
                notes: "Voy al mercado. — I am going to the market.", tags: ["verb"]),
            PresetCard(
                front: "grande", back: "big",
                notes: "Es una casa grande. — It is a big house.", tags: ["adjective"]),
            PresetCard(
                front: "pequeño", back: "small",
                notes: "El perro es pequeño. — The dog is small.", tags: ["adjective"]),
            PresetCard(
                front: "bueno", back: "good",
                notes: "Este libro es bueno. — This book is good.", tags: ["adjective"]),
            PresetCard(
                front: "uno", back: "one",
                notes: "Solo quiero uno. — I only want one.", tags: ["number"]),
            PresetCard(
                front: "dos", back: "two",
                notes: "Tengo dos gatos. — I have two cats.", tags: ["number"]),
        ]
    )

    static let frenchBasics = PresetDeck(
        slug: "french-basics",
        name: "French Basics",
        frontLanguage: "fr",
        backLanguage: "en",
        cards: [
            PresetCard(
                front: "l'eau", back: "water",
                notes: "Je voudrais un verre d'eau. — I would like a glass of water.", tags: ["noun", "food"]),
            PresetCard(
                front: "le pain", back: "bread",
                notes: "J'achète du pain à la boulangerie. — I buy bread at the bakery.", tags: ["noun", "food"]),
            PresetCard(
                front: "le fromage", back: "cheese",
                notes: "Ce fromage est délicieux. — This cheese is delicious.", tags: ["noun", "food"]),
            PresetCard(
                front: "la maison", back: "house",
                notes: "Notre maison est près de la gare. — Our house is near the station.", tags: ["noun", "place"]),
            PresetCard(
                front: "la ville", back: "city, town",
                notes: "Paris est une grande ville. — Paris is a big city.", tags: ["noun", "place"]),
            PresetCard(
                front: "l'ami", back: "friend",
                notes: "C'est mon ami Pierre. — This is my friend Pierre.", tags: ["noun", "people"]),
            PresetCard(
                front: "la femme", back: "woman",
                notes: "La femme parle au téléphone. — The woman is talking on the phone.", tags: ["noun", "people"]),
            PresetCard(
                front: "l'enfant", back: "child",
                notes: "L'enfant dort. — The child is sleeping.", tags: ["noun", "people"]),
            PresetCard(
                front: "le jour", back: "day",
                notes: "Un jour, je visiterai le Japon. — One day, I will visit Japan.", tags: ["noun", "time"]),
            PresetCard(
                front: "la nuit", back: "night",
                notes: "Bonne nuit, à demain ! — Good night, see you tomorrow!", tags: ["noun", "time"]),
            PresetCard(
                front: "aujourd'hui", back: "today",
                notes: "Aujourd'hui, il fait beau. — The weather is nice today.", tags: ["time"]),
            PresetCard(
                front: "bonjour", back: "hello, good morning",
                notes: "Bonjour, comment allez-vous ? — Hello, how are you?", tags: ["greeting"]),
            PresetCard(
                front: "merci", back: "thank you",
                notes: "Merci beaucoup pour le cadeau. — Thank you very much for the gift.", tags: ["greeting"]),
            PresetCard(
                front: "au revoir", back: "goodbye",
                notes: "Au revoir et bonne journée ! — Goodbye and have a nice day!", tags: ["greeting"]),
            PresetCard(
                front: "manger", back: "to eat",
                notes: "Nous mangeons à midi. — We eat at noon.", tags: ["verb", "food"]),
            PresetCard(
                front: "parler", back: "to speak",
                notes: "Je parle un peu français. — I speak a little French.", tags: ["verb"]),
            PresetCard(
                front: "aller", back: "to go",
                notes: "Je vais au marché samedi. — I am going to the market on Saturday.", tags: ["verb"]),
            PresetCard(
                front: "grand", back: "big, tall",
                notes: "Mon frère est très grand. — My brother is very tall.", tags: ["adjective"]),
            PresetCard(
                front: "petit", back: "small",
                notes: "J'habite dans un petit appartement. — I live in a small apartment.", tags: ["adjective"]),
            PresetCard(
                front: "trois", back: "three",
                notes: "J'ai trois sœurs. — I have three sisters.", tags: ["number"]),
        ]
    )

    static let germanBasics = PresetDeck(
        slug: "german-basics",
        name: "German Basics",
        frontLanguage: "de",
        backLanguage: "en",
        cards: [
            PresetCard(
                front: "das Wasser", back: "water",
                notes: "Ich trinke gern Wasser. — I like drinking water.", tags: ["noun", "food"]),
            PresetCard(
                front: "das Brot", back: "bread",
                notes: "Das Brot ist frisch. — The bread is fresh.", tags: ["noun", "food"]),
            PresetCard(
                front: "der Apfel", back: "apple",
                notes: "Der Apfel ist grün. — The apple is green.", tags: ["noun", "food"]),
            PresetCard(
                front: "das Haus", back: "house",
                notes: "Das Haus hat einen Garten. — The house has a garden.", tags: ["noun", "place"]),
            PresetCard(
                front: "die Stadt", back: "city, town",
                notes: "Berlin ist eine große Stadt. — Berlin is a big city.", tags: ["noun", "place"]),
            PresetCard(
                front: "der Freund", back: "friend",
                notes: "Mein Freund heißt Max. — My friend's name is Max.", tags: ["noun", "people"]),
            PresetCard(
                front: "die Frau", back: "woman",
                notes: "Die Frau liest eine Zeitung. — The woman is reading a newspaper.", tags: ["noun", "people"]),
            PresetCard(
                front: "das Kind", back: "child",
                notes: "Das Kind spielt im Garten. — The child is playing in the garden.", tags: ["noun", "people"]),
            PresetCard(
                front: "der Tag", back: "day",
                notes: "Ich arbeite jeden Tag. — I work every day.", tags: ["noun", "time"]),
            PresetCard(
                front: "die Woche", back: "week",
                notes: "Eine Woche hat sieben Tage. — A week has seven days.", tags: ["noun", "time"]),
            PresetCard(
                front: "heute", back: "today",
                notes: "Heute ist Montag. — Today is Monday.", tags: ["time"]),
            PresetCard(
                front: "hallo", back: "hello",
                notes: "Hallo, wie geht's? — Hi, how are you?", tags: ["greeting"]),
            PresetCard(
                front: "danke", back: "thank you",
                notes: "Danke für deine Hilfe! — Thanks for your help!", tags: ["greeting"]),
            PresetCard(
                front: "tschüss", back: "bye",
                notes: "Tschüss, bis morgen! — Bye, see you tomorrow!", tags: ["greeting"]),
            PresetCard(
                front: "essen", back: "to eat",
                notes: "Wir essen um sieben Uhr. — We eat at seven o'clock.", tags: ["verb", "food"]),
            PresetCard(
                front: "sprechen", back: "to speak",
                notes: "Sprichst du Deutsch? — Do you speak German?", tags: ["verb"]),
            PresetCard(
                front: "gehen", back: "to go, to walk",
                notes: "Ich gehe nach Hause. — I am going home.", tags: ["verb"]),
            PresetCard(
                front: "groß", back: "big, tall",
                notes: "Der Hund ist sehr groß. — The dog is very big.", tags: ["adjective"]),
            PresetCard(
                front: "klein", back: "small",
                notes: "Das Zimmer ist klein. — The room is small.", tags: ["adjective"]),
            PresetCard(
                front: "vier", back: "four",
                notes: "Ich habe vier Katzen. — I have four cats.", tags: ["number"]),
        ]
    )
}
