/// What to do about each finding kind: one or two sentences for the person
/// who reads the HTML report. docs/findings.md holds the same texts, made
/// by `FindingAdvice.markdownTable` (a test checks they have not drifted).
extension FindingKind {
    /// What to fix on the server (or in flipaudit's settings) so that the
    /// finding goes away.
    package var fix: String {
        switch self {
        case .stateMismatch:
            return
                "Return the request's `state` byte for byte, URL-encoded once. Keep it server-side with the session instead of rebuilding it from the client."
        case .codeToUnlistedRedirect:
            return
                "Check `redirect_uri` against the allowlist before a code is made, and send codes only to Google's App Flip and `/r/PROJECT_ID` URIs. Revoke the codes already sent elsewhere."
        case .codeDespiteClientMismatch:
            return
                "Check `client_id` against Google's client ID before signing the user in, and answer a mismatch with `error=invalid_request`, never a code. Revoke the codes already issued."
        case .codeReuse:
            return "Make each authorization code random (a secure generator), single-use and short-lived. Revoke the tokens issued for the reused code."
        case .redirectChanged:
            return
                "Redirect to the exact `redirect_uri` of the request (same scheme, host and path), never to a target taken from another parameter, a cookie or a stored default."
        case .errorToUnlistedRedirect:
            return
                "Check `redirect_uri` against the allowlist before redirecting with an error; for an unknown URI show an error page on your own domain instead (no open redirector)."
        case .missingErrorReturn:
            return
                "When a request with an allowlisted `redirect_uri` fails, redirect back to it with `error` and `state` instead of answering 4xx/5xx, so the Google app can recover."
        case .stateReuse:
            return "Refuse to answer a `state` whose session already returned or expired (a replayed link), and find out which client sends it."
        case .duplicateReturn:
            return "Answer each authorization request once: make the consent handler idempotent so that a double submit or a retry does not redirect again."
        case .codeAndError:
            return "Return either `code` or `error`, never both: the redirect builder must take one branch."
        case .emptyReturn:
            return "Every redirect back to the Google app must carry `code` or `error`, with `state`; fix the branch that redirects with neither."
        case .codeWithoutState:
            return "Always append the request's `state` to a code redirect: Google refuses a code without it, and it is the protection against forged requests."
        case .duplicateParam:
            return
                "Build redirect URLs with a URL library that sets each parameter once, and refuse requests whose URL repeats a flip parameter (parameter pollution)."
        case .redirectNotExact:
            return
                "Compare `redirect_uri` with the registered URIs as exact strings (RFC 9700 §4.1.3), not as parsed or normalized URLs, and refuse any other spelling without redirecting."
        case .redirectNotAllowlisted:
            return
                "Refuse requests whose `redirect_uri` is not allowlisted, without redirecting to it. If the URI is legitimately yours, pass it with `--allow-redirect` (or `--project-id`)."
        case .clientIDMismatch:
            return
                "Answer requests with an unknown `client_id` with `error=invalid_request`. If the ID is a Google client of yours, pass it with `--client-id`."
        case .nonstandardError:
            return "Map every failure to one of the four App Flip errors: `cancelled`, `unrecoverable`, `invalid_request` or `access_denied`."
        case .unknownState:
            return
                "Return only the states of requests your server received. Look for returns built from a stale or client-supplied state, or add the logs that hold the missing requests."
        case .noReturn:
            return
                "End every authorization request with a redirect back to Google, `error=cancelled` when the user gives up; a session that just stops leaves the Google app waiting."
        case .missingParam:
            return
                "Refuse flip requests that lack `client_id`, `state` or `redirect_uri` with an error page (no redirect). If Google sends them, check the App Flip settings of your Actions project."
        case .wrongErrorForClientMismatch:
            return "Answer a `client_id` mismatch with `error=invalid_request`, as App Flip asks."
        case .errorWithoutState:
            return "Append the request's `state` to error redirects too (RFC 6749 §4.1.2.1), so Google can match the error to its request."
        case .badEncoding:
            return "Percent-encode parameter values exactly once with a URL library: no hand-built query strings, no double or broken encoding."
        }
    }
}

/// The finding table of docs/findings.md, generated from `FindingKind`'s
/// own strings.
enum FindingAdvice {
    /// kind | severity | when | what to fix, one row per kind in table order.
    static var markdownTable: String {
        var out = "| kind | severity | when | what to fix |\n|---|---|---|---|\n"
        for kind in FindingKind.allCases {
            out += "| `\(kind.rawValue)` | \(kind.severity.rawValue) | \(kind.meaning) | \(kind.fix) |\n"
        }
        return out
    }
}
