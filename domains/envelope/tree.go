package envelope

// TurnsTree is a block's turns in EAL-Bench's jsonable form (what ParseBlocks reads back).
func TurnsTree(turns []Turn) []any {
	out := make([]any, len(turns))
	for i, t := range turns {
		out[i] = map[string]any{
			"turn_id": t.TurnID, "occurred_at": t.OccurredAt, "channel": t.Channel,
			"speaker_id": t.SpeakerID, "speaker_label": t.SpeakerLabel, "text": t.Text,
		}
	}
	return out
}
