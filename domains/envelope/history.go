package envelope

import "github.com/ealscope/ealscope/engine"

// EngineHistory converts a case's blocks and ledger events to the engine's domain-neutral
// form: blocks titled by their id, events in ledger order (SortEvents) with the instant of
// their source turn, a created record's tree in scope's layout and a patch's changes as the
// domain writes them (changes).
func EngineHistory(blocks []Block, events []Event, scope ScopeSpec, changes func(*Changes) map[string]any) ([]engine.Block, []engine.Event) {
	var outBlocks []engine.Block
	at := map[string]string{}
	for _, b := range blocks {
		eb := engine.Block{ID: b.BlockID, Index: b.BlockIndex, Title: b.BlockID, EndedAt: b.EndedAt}
		for _, t := range b.Turns {
			at[t.TurnID] = t.OccurredAt
			eb.Turns = append(eb.Turns, engine.Turn{ID: t.TurnID, ActorID: t.SpeakerID, Speaker: t.SpeakerLabel, Content: t.Text, OccurredAt: t.OccurredAt, BlockIndex: b.BlockIndex})
		}
		outBlocks = append(outBlocks, eb)
	}
	var outEvents []engine.Event
	for _, e := range SortEvents(events) {
		ee := engine.Event{
			ID: e.ID, Type: e.Type, Issuer: e.Issuer, BlockID: blocks[e.BlockIndex].BlockID, BlockIndex: e.BlockIndex,
			EffectiveAt: at[e.SourceTurnID], AuthorizationID: e.AuthorizationID, SourceTurnIDs: []string{e.SourceTurnID},
		}
		switch {
		case e.Record != nil:
			ee.NewAuthorizationID = e.Record.ID
			ee.Detail = e.Record.Tree(scope)
		case e.Changes != nil:
			ee.Detail = changes(e.Changes)
		}
		outEvents = append(outEvents, ee)
	}
	return outBlocks, outEvents
}
