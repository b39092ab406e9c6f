import CardboxCLI

CardboxCommand.main()
