import ArgumentParser
import CardboxCLI
import CardboxCore
import CardboxServer
import Foundation

struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Manage the sync server's accounts and devices.",
        discussion: """
            Works on the server's database directly (run it where the server runs).

            Examples:
              cardbox admin user add ana --password-stdin < password.txt
              cardbox admin user set-plan ana premium
              cardbox admin device list ana
            """,
        subcommands: [UserCommand.self, DeviceCommand.self])

    // Accepted before the subcommand too (`cardbox admin --database … user list`); each subcommand reads it.
    @OptionGroup var database: ServerDatabaseOptions

    static func account(named name: String, in database: any ServerDatabase) async throws -> ServerAccount {
        guard let found = try await database.account(named: name) else {
            throw CardboxError.notFound(kind: "account", reference: name)
        }
        return found.account
    }

    struct UserCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "user", abstract: "Add, list, remove accounts; change passwords and plans.",
            discussion: "Example:\n  cardbox admin user list",
            subcommands: [Add.self, List.self, Remove.self, Passwd.self, SetPlan.self, SetAdmin.self])

        @OptionGroup var database: ServerDatabaseOptions

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add", abstract: "Add an account.",
                discussion: "Example:\n  cardbox admin user add ana --plan premium --password-stdin < password.txt")
            @OptionGroup var database: ServerDatabaseOptions
            @Argument(help: "The account's name: 1 to 64 letters, digits or . - _ @.") var name: String
            @Flag(name: .long, help: "Read the password from standard input.") var passwordStdin = false
            @Option(name: .long, help: "free (25 cards) or premium (unlimited).") var plan = "free"

            func run() async throws {
                let plan = try Plan.validate(self.plan)
                let password = try Console.readPassword(fromStdin: passwordStdin)
                let account = try await database.with { database in
                    try await AccountService(store: database).addAccount(name: name, password: password, plan: plan)
                }
                Terminal.current.print(
                    "added account \(account.name) (\(account.plan.rawValue)) \(account.id.uuidString.lowercased())")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List accounts.",
                discussion: "Example:\n  cardbox admin user list --json")
            @OptionGroup var database: ServerDatabaseOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let accounts = try await database.with { try await $0.accounts() }
                try Console.emit(accounts, json: output.json) { accounts in
                    accounts.isEmpty
                        ? "no accounts"
                        : Console.table(
                            accounts.map {
                                [
                                    $0.name + ($0.isAdministrator ? " (administrator)" : ""), $0.plan.rawValue,
                                    $0.id.uuidString.lowercased(),
                                ]
                            },
                            header: ["USER", "PLAN", "ID"])
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove", abstract: "Remove an account with its devices and everything it synced.",
                discussion: "Example:\n  cardbox admin user remove ana")
            @OptionGroup var database: ServerDatabaseOptions
            @Argument(help: "The account's name.") var name: String

            func run() async throws {
                try await database.with { database in
                    try await database.removeAccount(try await AdminCommand.account(named: name, in: database).id)
                }
                Terminal.current.print("removed account \(name)")
            }
        }

        struct Passwd: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "passwd",
                abstract: "Set an account's password; every device and browser of the account is signed out.",
                discussion: "Example:\n  cardbox admin user passwd ana --password-stdin < password.txt")
            @OptionGroup var database: ServerDatabaseOptions
            @Argument(help: "The account's name.") var name: String
            @Flag(name: .long, help: "Read the password from standard input.") var passwordStdin = false

            func run() async throws {
                let password = try Console.readPassword(fromStdin: passwordStdin)
                try await database.with { database in
                    let account = try await AdminCommand.account(named: name, in: database)
                    try await AccountService(store: database).setPassword(password, account: account.id)
                }
                Terminal.current.print("changed the password of \(name)")
            }
        }

        struct SetAdmin: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "set-admin",
                abstract: "Make an account the server's administrator (its Users page), in place of the one before.",
                discussion: "The server's first account is its administrator until this.\n\nExample:\n"
                    + "  cardbox admin user set-admin ana")
            @OptionGroup var database: ServerDatabaseOptions
            @Argument(help: "The account's name.") var name: String

            func run() async throws {
                try await database.with { database in
                    try await database.setAdministrator(try await AdminCommand.account(named: name, in: database).id)
                }
                Terminal.current.print("\(name) is the server's administrator")
            }
        }

        struct SetPlan: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "set-plan", abstract: "Set an account's plan; its devices follow at their next sync.",
                discussion: "Example:\n  cardbox admin user set-plan ana premium")
            @OptionGroup var database: ServerDatabaseOptions
            @Argument(help: "The account's name.") var name: String
            @Argument(help: "free or premium.") var plan: String

            func run() async throws {
                let plan = try Plan.validate(self.plan)
                try await database.with { database in
                    try await database.setPlan(
                        plan, account: try await AdminCommand.account(named: name, in: database).id)
                }
                Terminal.current.print("\(name) is on the \(plan.rawValue) plan")
            }
        }
    }

    struct DeviceCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "device", abstract: "List an account's devices, or revoke one's token.",
            discussion: "Example:\n  cardbox admin device list ana", subcommands: [List.self, Revoke.self])

        @OptionGroup var database: ServerDatabaseOptions

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List an account's devices, revoked ones too.",
                discussion: "Example:\n  cardbox admin device list ana")
            @OptionGroup var database: ServerDatabaseOptions
            @OptionGroup var output: OutputOptions
            @Argument(help: "The account's name.") var name: String

            func run() async throws {
                let devices = try await database.with { database in
                    try await database.devices(account: try await AdminCommand.account(named: name, in: database).id)
                }
                try Console.emit(devices, json: output.json) { devices in
                    devices.isEmpty
                        ? "no devices"
                        : Console.table(
                            devices.map {
                                [$0.name, $0.revokedAt == nil ? "active" : "revoked", $0.id.uuidString.lowercased()]
                            },
                            header: ["DEVICE", "STATE", "ID"])
                }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "revoke", abstract: "Revoke a device's token: it must sign in again.",
                discussion: "Example:\n  cardbox admin device revoke ana 5b1e09c3")
            @OptionGroup var database: ServerDatabaseOptions
            @Argument(help: "The account's name.") var name: String
            @Argument(help: "The device's id, or the start of it.") var device: String

            func run() async throws {
                try await database.with { database in
                    let account = try await AdminCommand.account(named: name, in: database)
                    let matches = try await database.devices(account: account.id).filter {
                        $0.id.uuidString.lowercased().hasPrefix(device.lowercased())
                    }
                    guard let match = matches.first else {
                        throw CardboxError.notFound(kind: "device", reference: device)
                    }
                    guard matches.count == 1 else {
                        throw CardboxError.ambiguous(
                            kind: "device", reference: device, candidates: matches.map { $0.id.uuidString.lowercased() }
                        )
                    }
                    _ = try await database.revokeDevice(match.id, account: account.id, now: Date())
                }
                Terminal.current.print("revoked device \(device) of \(name)")
            }
        }
    }
}
