/// Google's two redirect hosts.
public enum GoogleHosts {
    public static let production = "oauth-redirect.googleusercontent.com"
    public static let sandbox = "oauth-redirect-sandbox.googleusercontent.com"

}
