package finance

import "github.com/ealscope/ealscope/domains/envelope"

// fidelity is finance's field-level fidelity (docs/FORMATS.md 7.1): the envelope fields and the nine
// scope fields, scope lists compared as sorted tuples, the same instant written differently
// (or a naive time read as UTC) exact, quantity and price maximum upper bounds and the price
// minimum a lower bound, scope and literal contradictions both over- and undergrants.
var fidelity = envelope.FidelitySpec{Scope: ScopeSpec, SortLists: true, SameInstantExact: true}
