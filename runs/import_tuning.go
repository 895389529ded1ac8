package runs

// importCacheKiB is the page cache an import transaction's connection gets. SQLite's default
// (2 MB) is far smaller than a run's indexes: once it is full, every insert spills dirty pages
// into the write-ahead log and reads them back, so a page is written many times before the
// commit. A larger cache keeps the transaction's pages in memory until the commit writes them
// once. It changes nothing of atomicity (the WAL and synchronous=NORMAL stay as they are, and
// spilled frames are still uncommitted until the commit record). The memory is SQLite's own
// (outside the Go heap) and is used only as far as the transaction needs it.
const importCacheKiB = 64 << 10

// tuneImportTx sets the import's pragmas on the transaction's connection.
func tuneImportTx(w *txWriter) error {
	_, err := w.tx.ExecContext(w.ctx, "PRAGMA cache_size = -"+itoa(importCacheKiB))
	return err
}
