// Package eventsource is EAL-Bench's bounded event sourcing (docs/FORMATS.md 8.2): the typed
// lifecycle events a writer extracts from one block, the system-assigned event ids, and the
// deterministic public reducer that applies a batch atomically to the records and yields the
// visible typed state. It is pure and domain-neutral: a domain takes part through its
// engine.EventSourcingSpec and its strict typed-memory parser (engine.MemoryCodec), and the
// capacity check through a token counter the caller supplies. It performs no I/O.
//
// The rules and the error texts follow EAL-Bench's experiments/mitigations/event_sourcing/
// core.py (PublicEventReducer, validate_event_arguments); where docs/FORMATS.md and the shared
// reference reductions (event_sourcing_reducer__shared_cases.json) disagree, the data wins.
package eventsource
