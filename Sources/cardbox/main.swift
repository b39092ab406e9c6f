import CardboxCLI
CardboxCommand.main()
