/// The API's description, served at `/openapi.yaml` as `Resources/openapi.yaml` holds it (embedded in
/// the binary); CI checks the server against it with schemathesis (`scripts/api-check.sh`): every
/// answer has a documented status and shape.
enum OpenAPIDocument {
    static let yaml = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)
}
