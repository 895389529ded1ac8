package runs

// memoryText is the SQL expression of a memory's text as shown (alias-free, for queries on
// memories alone): a free-text memory's string, else its canonical payload. Imports store
// payload_text empty for payloads other than free text, so the payload is kept once
// (payload_json); workspaces imported before kept it twice, and read the same.
const memoryText = `IIF(payload_text = '' AND architecture <> 'free_text', payload_json, payload_text)`
