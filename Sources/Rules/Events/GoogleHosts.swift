/// Google's two redirect hosts.
package enum GoogleHosts {
    package static let production = "oauth-redirect.googleusercontent.com"
    package static let sandbox = "oauth-redirect-sandbox.googleusercontent.com"

}
