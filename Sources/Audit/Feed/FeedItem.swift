/// What the merge gets when it pulls an input.
enum FeedItem: Sendable {
    case batch(EventBatch)
    case end(FileScan)
}
