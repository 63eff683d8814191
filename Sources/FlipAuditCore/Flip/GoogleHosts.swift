/// Google's two redirect hosts.
@_spi(Fuzzing) public enum GoogleHosts {
    public static let production = "oauth-redirect.googleusercontent.com"
    public static let sandbox = "oauth-redirect-sandbox.googleusercontent.com"

}
