#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Enough file descriptors to run at all. Dispatch's signal sources need an
/// epoll and an eventfd of their own and trap (SIGILL, no message) when
/// they cannot get them; the outputs' temporary files, the checkpoint's
/// lock and an input need a few more. Checked first thing, so a tiny
/// `ulimit -n` is one line and exit 2 instead of a crash
/// (docs/hostile-environment.md). Past this check, an input or output that
/// cannot be opened is that input's or output's error (exit 3 or 2).
enum Descriptors {
    /// Descriptors a run needs free besides the three standard ones.
    static let needed = 12

    /// The message when fewer than `needed` can be opened, else nil.
    static func shortage() -> String? {
        var opened: [Int32] = []
        defer { for fd in opened { _ = close(fd) } }
        for _ in 0..<needed {
            let fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0)
            guard fd >= 0 else {
                guard errno == EMFILE || errno == ENFILE else { return nil }
                var limit = rlimit()
                #if canImport(Glibc)
                    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
                #else
                    let resource = RLIMIT_NOFILE
                #endif
                let text = getrlimit(resource, &limit) == 0 ? " (ulimit -n is \(limit.rlim_cur))" : ""
                return "too few file descriptors\(text): \(opened.count) free, a run needs \(needed) besides standard input, output and error; raise ulimit -n"
            }
            opened.append(fd)
        }
        return nil
    }
}
