import CardboxServerCLI

// The server's commands: `cardbox serve` and `cardbox admin` hand their process over to this program.
await CardboxServerCommand.runProcess()
