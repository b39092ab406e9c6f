import CardboxCLI

CardboxCommand.runProcess()
