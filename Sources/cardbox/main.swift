import CardboxCLI

await CardboxCommand.runProcess()
