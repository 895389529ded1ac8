package audience

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/ealscope/ealscope/engine"
)

// Scenario names (docs/AUDIENCE.md "The multi-party corpus").
const (
	ScenarioPrivateGrant     = "private_grant"
	ScenarioMergedNarrowing  = "merged_narrowing"
	ScenarioWideningGrant    = "widening_grant"
	ScenarioUnresolvedViewer = "unresolved_viewer"
)

// Principals and channels the generator adds to every case.
const (
	Outsider         = "visiting_auditor"
	UnlistedViewer   = "unlisted_requester"
	SharedChannel    = "team_room"
	PublicChannel    = "announcements"
	PrivateGrantRoom = "grant_room"
)

// GenOptions control the sidecar generator.
type GenOptions struct {
	Seed uint64
	// Distractors gives the number of other-audience conversations of case i (0-based).
	Distractors func(i int) int
}

// Generate writes the audience sidecar of a multi-party corpus: for each case, in order,
// scenario i mod 4 (private grant, merged narrowing, widening grant, unresolved viewer), its
// principals and channels, the requests of every probe by the grantee and by someone else,
// the grants, and the ground truth. A case whose ledger cannot carry its scenario (a merged
// narrowing needs a patch) is given the private-grant scenario. Seeded: the same cases, seed
// and options give the same bytes.
func Generate(d engine.Domain, cases []*engine.Case, corpusVersion string, opts GenOptions) (*File, error) {
	sa, rules, err := generatorRoles(d)
	if err != nil {
		return nil, err
	}
	f := &File{DomainID: d.ID(), CorpusVersion: corpusVersion, Cases: map[string]*Entry{}}
	for i, c := range cases {
		e, err := generateOne(d, sa, rules, c, i, opts)
		if err != nil {
			return nil, err
		}
		f.Cases[c.ID] = e
		f.Order = append(f.Order, c.ID)
	}
	sort.Strings(f.Order)
	return f, nil
}

// GenerateEntry is Generate for the i-th case (0-based) alone, for streaming a large corpus.
func GenerateEntry(d engine.Domain, c *engine.Case, i int, opts GenOptions) (*Entry, error) {
	sa, rules, err := generatorRoles(d)
	if err != nil {
		return nil, err
	}
	return generateOne(d, sa, rules, c, i, opts)
}

// generatorRoles are the two roles a domain plays for the generator: who speaks for a turn,
// and the audience rules.
func generatorRoles(d engine.Domain) (engine.SourceAuthorityRules, engine.AudienceRules, error) {
	sa, ok := d.(engine.SourceAuthorityRules)
	if !ok {
		return nil, nil, fmt.Errorf("domain %s does not say who speaks for a turn", d.ID())
	}
	rules, ok := d.(engine.AudienceRules)
	if !ok {
		return nil, nil, fmt.Errorf("domain %s has no audience role", d.ID())
	}
	return sa, rules, nil
}

func generateOne(d engine.Domain, sa engine.SourceAuthorityRules, rules engine.AudienceRules, c *engine.Case, i int, opts GenOptions) (*Entry, error) {
	rng := rand.New(rand.NewPCG(opts.Seed, uint64(i)))
	n := 0
	if opts.Distractors != nil {
		n = opts.Distractors(i)
	}
	e, err := generateEntry(d, sa, rules, c, i%4, n, rng)
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", c.ID, err)
	}
	return e, nil
}

// caseFacts are what the generator reads off a case.
type caseFacts struct {
	speakers    []string // in order of first appearance
	authority   string
	grantee     string
	issueTurns  map[string]bool
	patchTurns  map[string]bool
	ledgerTurns map[string]bool
	noiseTurns  []engine.Turn
}

func readFacts(sa engine.SourceAuthorityRules, c *engine.Case) (caseFacts, error) {
	f := caseFacts{issueTurns: map[string]bool{}, patchTurns: map[string]bool{}, ledgerTurns: map[string]bool{}}
	capable := map[string]bool{}
	for _, p := range sa.AuthorityCapablePrincipals(c) {
		capable[p] = true
	}
	for _, ev := range c.Events {
		for _, t := range ev.SourceTurnIDs {
			f.ledgerTurns[t] = true
			if ev.Type == "patch" {
				f.patchTurns[t] = true
			} else {
				f.issueTurns[t] = true
			}
		}
	}
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			p := sa.TurnPrincipal(t)
			if !slices.Contains(f.speakers, p) {
				f.speakers = append(f.speakers, p)
			}
			if capable[p] && f.authority == "" && f.ledgerTurns[t.ID] {
				f.authority = p
			}
			if !f.ledgerTurns[t.ID] {
				f.noiseTurns = append(f.noiseTurns, t)
			}
		}
	}
	for _, p := range f.speakers {
		if !capable[p] && f.grantee == "" {
			f.grantee = p
		}
	}
	if f.authority == "" || f.grantee == "" {
		return f, fmt.Errorf("needs a granting principal who speaks and another principal")
	}
	return f, nil
}

func generateEntry(d engine.Domain, sa engine.SourceAuthorityRules, rules engine.AudienceRules, c *engine.Case, scenario, distractors int, rng *rand.Rand) (*Entry, error) {
	facts, err := readFacts(sa, c)
	if err != nil {
		return nil, err
	}
	// A merged narrowing needs a patch: the scenario slots of 0 and 1 go to the cases that
	// can carry them.
	switch {
	case scenario == 1 && len(facts.patchTurns) == 0:
		scenario = 0
	case scenario == 0 && len(facts.patchTurns) > 0 && rng.IntN(2) == 0:
		scenario = 1
	}
	e := &Entry{Audience: engine.CaseAudience{TurnChannels: map[string]string{}, Unresolved: map[string]string{}}}
	a := &e.Audience
	capable := map[string]bool{}
	for _, p := range sa.AuthorityCapablePrincipals(c) {
		capable[p] = true
	}
	everyone := append(slices.Clone(facts.speakers), Outsider)
	for _, p := range everyone {
		a.Principals = append(a.Principals, engine.AudiencePrincipal{ID: p, CanGrant: capable[p]})
	}
	// Which turns are private: the grant's own words (scenario 1: only the narrowing).
	private := map[string]bool{}
	for t := range facts.issueTurns {
		if scenario != 1 {
			private[t] = true
		}
	}
	for t := range facts.patchTurns {
		private[t] = true
	}
	// The decoy: a turn by a principal who cannot grant, said in public (scenario 2).
	var decoy string
	if scenario == 2 {
		for _, t := range facts.noiseTurns {
			if !capable[sa.TurnPrincipal(t)] {
				decoy = t.ID
				break
			}
		}
	}
	// Distractor conversations: other principals with the authority, each over one noise turn.
	distractorTurn := map[string]string{}
	var pool []engine.Turn
	for _, t := range facts.noiseTurns {
		if t.ID != decoy {
			pool = append(pool, t)
		}
	}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	for k := 0; k < distractors && k < len(pool); k++ {
		other := fmt.Sprintf("other_party_%d", k+1)
		a.Principals = append(a.Principals, engine.AudiencePrincipal{ID: other})
		distractorTurn[pool[k].ID] = other
	}
	assignChannels(a, rules, c, sa, facts, private, decoy, distractorTurn)
	// Requests: every probe by the grantee in the grant's room and by someone else in the team
	// room (the outsider; the unlisted requester in scenario 3).
	other := Outsider
	if scenario == 3 {
		other = UnlistedViewer
		a.Unresolved[UnlistedViewer] = "missing_from_principals"
	}
	// The unlisted requester turns up in the grant's room (conflicting memberships): who it
	// really is, the ground truth says (the grantee on a new account, or an outsider).
	otherRoom := SharedChannel
	if scenario == 3 {
		otherRoom = PrivateGrantRoom
	}
	for _, p := range c.Probes {
		a.Requests = append(a.Requests,
			engine.AudienceRequest{ID: p.ID + "@grantee", ProbeID: p.ID, Principal: facts.grantee, Channel: PrivateGrantRoom},
			engine.AudienceRequest{ID: p.ID + "@other", ProbeID: p.ID, Principal: other, Channel: otherRoom})
	}
	if scenario == 2 {
		if g, ok := wideningGrant(c, facts); ok {
			a.Grants = append(a.Grants, g)
		}
	}
	e.Truth, err = groundTruth(d, rules, c, a, scenario, decoy)
	if err == nil && scenario == 3 {
		// Half the unlisted requests are the grantee's: entitled items a closed identity
		// policy loses.
		for i, p := range c.Probes {
			if i%2 == 0 {
				id := p.ID + "@other"
				grantee := e.Truth.Requests[p.ID+"@grantee"]
				e.Truth.Requests[id] = RequestTruth{TruePrincipal: facts.grantee, Entitled: grantee.Entitled}
			}
		}
	}
	return e, err
}

// assignChannels declares the channels and, where the corpus names none, gives each turn one:
// private turns to the grant's room, distractor turns to their own room, the decoy to the
// public channel, the rest to the team room. Where the corpus names channels, a corpus channel
// is private when it holds a private turn, a distractor room when it holds a distractor turn
// and nothing of the ledger, and shared otherwise.
func assignChannels(a *engine.CaseAudience, rules engine.AudienceRules, c *engine.Case, sa engine.SourceAuthorityRules,
	facts caseFacts, private map[string]bool, decoy string, distractorTurn map[string]string) {
	team := append(slices.Clone(facts.speakers), Outsider)
	grantRoom := []string{facts.authority, facts.grantee}
	corpusKind := map[string]string{}
	corpusSpeakers := map[string][]string{}
	var corpusOrder []string
	bare := *c
	bare.Audience = &engine.CaseAudience{}
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			ch := rules.TurnChannel(&bare, t)
			if ch == "" {
				switch {
				case private[t.ID]:
					a.TurnChannels[t.ID] = PrivateGrantRoom
					grantRoom = append(grantRoom, sa.TurnPrincipal(t))
				case distractorTurn[t.ID] != "":
					a.TurnChannels[t.ID] = "room_" + distractorTurn[t.ID]
				case t.ID == decoy:
					a.TurnChannels[t.ID] = PublicChannel
				default:
					a.TurnChannels[t.ID] = SharedChannel
				}
				continue
			}
			if _, seen := corpusKind[ch]; !seen {
				corpusOrder = append(corpusOrder, ch)
				corpusKind[ch] = "shared"
			}
			corpusSpeakers[ch] = append(corpusSpeakers[ch], sa.TurnPrincipal(t))
			switch {
			case private[t.ID]:
				corpusKind[ch] = "private"
			case t.ID == decoy && corpusKind[ch] == "shared":
				corpusKind[ch] = "public"
			case distractorTurn[t.ID] != "" && corpusKind[ch] == "shared":
				corpusKind[ch] = "room_" + distractorTurn[t.ID]
			}
		}
	}
	// A corpus channel that also carries ledger turns is not a distractor room.
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			ch := rules.TurnChannel(&bare, t)
			if ch == "" || !facts.ledgerTurns[t.ID] {
				continue
			}
			if k := corpusKind[ch]; k != "private" && k != "shared" {
				corpusKind[ch] = "shared"
			}
		}
	}
	a.Channels = append(a.Channels,
		engine.AudienceChannel{ID: SharedChannel, Visibility: engine.VisibilityShared, Participants: engine.AudienceOf(team...).Principals},
		engine.AudienceChannel{ID: PublicChannel, Visibility: engine.VisibilityPublic, Participants: []string{}})
	rooms := map[string]bool{}
	for _, other := range distractorTurn {
		rooms[other] = true
	}
	for _, other := range engine.SortedSet(rooms) {
		a.Channels = append(a.Channels, engine.AudienceChannel{ID: "room_" + other, Visibility: engine.VisibilityPrivate, Participants: []string{facts.authority, other}})
	}
	for _, ch := range corpusOrder {
		switch k := corpusKind[ch]; {
		case k == "private":
			a.Channels = append(a.Channels, engine.AudienceChannel{ID: ch, Visibility: engine.VisibilityPrivate, Participants: engine.AudienceOf(append(corpusSpeakers[ch], facts.authority, facts.grantee)...).Principals})
		case k == "public":
			a.Channels = append(a.Channels, engine.AudienceChannel{ID: ch, Visibility: engine.VisibilityPublic, Participants: []string{}})
		case k == "shared":
			a.Channels = append(a.Channels, engine.AudienceChannel{ID: ch, Visibility: engine.VisibilityShared, Participants: engine.AudienceOf(team...).Principals})
		default:
			a.Channels = append(a.Channels, engine.AudienceChannel{ID: ch, Visibility: engine.VisibilityPrivate, Participants: engine.AudienceOf(append(corpusSpeakers[ch], k[len("room_"):])...).Principals})
		}
	}
	a.Channels = append(a.Channels, engine.AudienceChannel{ID: PrivateGrantRoom, Visibility: engine.VisibilityPrivate, Participants: engine.AudienceOf(grantRoom...).Principals})
}

// wideningGrant shows the case's first record to the team room from a third of the history
// until its final block, granted by the authority.
func wideningGrant(c *engine.Case, facts caseFacts) (engine.AudienceGrant, bool) {
	var record string
	for _, ev := range c.Events {
		if id := firstNonEmpty(ev.NewAuthorizationID, ev.AuthorizationID); id != "" {
			record = id
			break
		}
	}
	n := len(c.Blocks)
	if record == "" || n < 3 {
		return engine.AudienceGrant{}, false
	}
	at, removed := c.Blocks[n/3], c.Blocks[n-1]
	if len(at.Turns) == 0 || len(removed.Turns) == 0 {
		return engine.AudienceGrant{}, false
	}
	return engine.AudienceGrant{ID: "widen_" + record, ObjectRecord: record, ToChannel: SharedChannel, By: facts.authority,
		AtTurn: at.Turns[0].ID, AtBlock: at.Index, RemovedAtTurn: removed.Turns[0].ID, RemovedAtBlock: removed.Index}, true
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
