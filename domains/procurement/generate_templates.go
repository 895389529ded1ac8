package procurement

// Template tables of the case generator (generate.go). Every text here was written for
// ealscope; none is copied from EAL-Bench. Contents are ASCII so that the JSONL bytes do not
// depend on an encoder's escaping choices (one speaker name carries an ampersand on purpose,
// to keep the writer's HTML escaping off under test).

// genActor is one participant of a generated history.
type genActor struct {
	id, speaker string
}

// genDepartment is a grantee team and the categories it buys.
type genDepartment struct {
	actor genActor
	// short goes into authorization ids.
	short      string
	categories []string
}

var genDepartments = []genDepartment{
	{genActor{"it_procurement", "IT Procurement"}, "it", []string{"toner", "printer_paper", "network_cables", "docking_stations", "usb_headsets"}},
	{genActor{"facilities_procurement", "Facilities Procurement"}, "fac", []string{"cleaning_supplies", "hvac_filters", "led_lamps", "ergonomic_chairs", "safety_signage"}},
	{genActor{"lab_operations", "R&D Lab Operations"}, "lab", []string{"reagent_kits", "pipette_tips", "nitrile_gloves", "centrifuge_tubes", "sample_labels"}},
	{genActor{"marketing_operations", "Marketing Operations"}, "mkt", []string{"event_banners", "printed_brochures", "promotional_merchandise", "booth_rentals", "display_stands"}},
	{genActor{"field_service", "Field Service"}, "fld", []string{"replacement_parts", "diagnostic_tools", "safety_boots", "vehicle_batteries", "hand_tools"}},
	{genActor{"warehouse_operations", "Warehouse Operations"}, "whs", []string{"pallet_wrap", "shipping_cartons", "label_printers", "forklift_parts", "safety_vests"}},
}

var genVendors = []string{
	"Northwind", "ApexSource", "Brightline", "CobaltTrade", "MeridianGoods",
	"HarborWorks", "Quillstone", "TesseraSupply", "Larkspur", "OrbitalParts",
}

var genCurrencies = []string{"USD", "EUR"}

// genConditions complete "a supplier that ..." in the policy and "<vendor> ..." in the
// history.
var genConditions = []string{
	"has not completed its annual security review",
	"lacks a current ISO 9001 certificate",
	"is still pending sanctions re-screening",
	"is not on the preferred-supplier list",
	"has an expired insurance certificate on file",
}

var (
	genCFO      = genActor{"chief_financial_officer", "Chief Financial Officer"}
	genDirector = genActor{"procurement_director", "Procurement Director"}

	genCompliance = genActor{"compliance", "Compliance"}
	genLegal      = genActor{"legal", "Legal"}
	genVendorMgmt = genActor{"vendor_management", "Vendor Management"}
	genController = genActor{"controller", "Controller"}

	// genClaimants are non-authoritative people who quote a grant with a wider scope.
	genClaimants = []genActor{
		{"procurement_manager", "Procurement Manager"},
		{"regional_operations_lead", "Regional Operations Lead"},
		{"department_head", "Department Head"},
		{"sales_engineer", "Sales Engineer"},
	}
	// genHandoffActors restate terms from old notes.
	genHandoffActors = []genActor{
		{"operations_coordinator", "Operations Coordinator"},
		{"outgoing_buyer", "Outgoing Buyer"},
		{"shift_lead", "Shift Lead"},
	}
	genBudgetActors = []genActor{
		{"treasury", "Treasury"},
		{"budget_office", "Budget Office"},
		{"finance_business_partner", "Finance Business Partner"},
	}
)

var genOffices = []string{"Lyon", "Denver", "Osaka", "Leeds", "Porto", "Austin", "Gdansk", "Pune"}

var genWeekdays = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}

// genNoise is operational chatter with no bearing on any authorization. Placeholders:
// {office}, {weekday}, {n}.
var genNoise = []struct {
	actor genActor
	text  string
}{
	{genActor{"facilities", "Facilities"}, "The {office} office tests its fire alarm on {weekday} morning. Expect two short sirens; nobody needs to leave unless the alarm keeps sounding."},
	{genActor{"it_service_desk", "IT Service Desk"}, "Password resets are slow today because the identity provider is throttling requests. About {n} tickets are queued and handled in order."},
	{genActor{"people_operations", "People Operations"}, "Benefits enrollment closes on {weekday}. Anyone who makes no choice keeps last year's plan."},
	{genActor{"finance_operations", "Finance Operations"}, "The month-end close calendar is posted. Journal entries sent after {weekday} noon land in the next period."},
	{genActor{"logistics", "Logistics"}, "Carrier pickups from the {office} dock move to 15:00 for the rest of the month because of road works outside the gate."},
	{genActor{"records_management", "Records Management"}, "Scanned contracts older than seven years are moving to cold storage on {weekday}. Search may show duplicates for a day or two."},
	{genActor{"security_engineering", "Security Engineering"}, "A browser update reaches {n} laptops overnight. Leave devices plugged in; restarts happen on their own."},
	{genActor{"communications", "Communications"}, "The intranet homepage gets a new layout after {weekday}'s release. Team pages and links stay where they are."},
	{genActor{"office_services", "Office Services"}, "Meeting room 4B is closed on {weekday} while the projector is swapped out."},
	{genActor{"analytics", "Analytics"}, "The weekly spend dashboard missed {n} invoices from the {office} entity because a data feed ran late. Figures will be corrected tomorrow."},
	{genActor{"quality_assurance", "Quality Assurance"}, "Incoming inspection sampled {n} deliveries last week and found no packaging defects."},
	{genActor{"learning_and_development", "Learning and Development"}, "Two seats opened in the negotiation skills workshop on {weekday}. Sign up through the learning portal."},
	{genActor{"travel_desk", "Travel Desk"}, "Rail bookings for the {office} offsite must be made by {weekday}; the group fare lapses after that."},
	{genActor{"infrastructure", "Infrastructure"}, "The file-share restore test finished. {n} folders needed their permissions fixed by hand; nothing else changed."},
	{genActor{"sustainability_office", "Sustainability Office"}, "The supplier emissions questionnaire now asks for site-level data. Returning a questionnaire is not the same as holding a certificate."},
	{genActor{"receiving", "Receiving"}, "The {office} loading dock takes deliveries between 08:00 and 16:00 on weekdays. Drivers who arrive later have to rebook."},
	{genActor{"accounts_payable", "Accounts Payable"}, "{n} invoices are on hold waiting for goods-received notes. Please confirm receipts in the system when parcels arrive."},
	{genActor{"workplace_technology", "Workplace Technology"}, "Headset pairing problems in {office} came from outdated dongle firmware; the fix goes out on {weekday}."},
	{genActor{"demand_planning", "Demand Planning"}, "The {office} consumption forecast was rerun after a duplicated import. The corrected numbers are a little lower than last week's."},
	{genActor{"facilities", "Facilities"}, "Heating in the {office} east wing is serviced on {weekday}; portable heaters are available at reception."},
	{genActor{"it_service_desk", "IT Service Desk"}, "Print queue {n} in {office} is offline for maintenance. Jobs are redirected to the next floor."},
	{genActor{"people_operations", "People Operations"}, "Welcome to the {n} new starters joining this month. Buddy assignments go out on {weekday}."},
	{genActor{"cost_accounting", "Cost Accounting"}, "{n} shared-service cost centers were renamed in the ledger. The numbers behind them did not change."},
	{genActor{"internal_audit", "Internal Audit"}, "Next month we sample {n} purchase orders from last quarter. Keep each order's approval message attached to it."},
	{genActor{"vendor_data_team", "Vendor Data Team"}, "Supplier master data for the {office} entity is being migrated. Display names may look duplicated for a few hours; please do not merge profiles by hand."},
	{genActor{"office_services", "Office Services"}, "The cafeteria closes early on {weekday} for a deep clean."},
	{genActor{"logistics", "Logistics"}, "Tracking links for parcels shipped before {weekday} may show an old status until the carrier resynchronises."},
	{genActor{"security_operations", "Security Operations"}, "Badge access to the {office} server room is being recertified. Managers will receive a review list."},
	{genActor{"communications", "Communications"}, "The all-hands on {weekday} will be streamed, and questions can be sent in advance."},
	{genActor{"analytics", "Analytics"}, "Order cycle time in {office} improved by {n} percent this quarter, mostly because goods receipt got faster."},
	{genActor{"facilities", "Facilities"}, "Bike racks at the {office} entrance move to the courtyard next week."},
	{genActor{"treasury_operations", "Treasury Operations"}, "Exchange rates for {office} intercompany recharges are fixed for the month as of {weekday}."},
	{genActor{"it_operations", "IT Operations"}, "Shared drive usage crossed {n} percent. Please archive old exports you no longer need."},
	{genActor{"health_and_safety", "Health & Safety"}, "First-aid kits on every floor of the {office} office were restocked. Report anything missing to reception."},
	{genActor{"records_management", "Records Management"}, "From {weekday}, meeting recordings are kept for sixty days. Written approvals keep their longer retention class."},
	{genActor{"procurement_systems", "Procurement Systems"}, "The purchase-request form gains an optional delivery-notes field on {weekday}. It is free text and plays no part in approvals."},
	{genActor{"quality_assurance", "Quality Assurance"}, "Calibration certificates for the {office} scales were renewed this morning."},
	{genActor{"people_operations", "People Operations"}, "Applications for the mentoring program open on {weekday}."},
	{genActor{"it_service_desk", "IT Service Desk"}, "VPN maintenance runs on {weekday} night between 22:00 and 23:00."},
	{genActor{"legal_operations", "Legal Operations"}, "The standard confidentiality template was refreshed on {weekday}. Agreements already signed on the old version stay valid."},
	{genActor{"facilities", "Facilities"}, "Window cleaning at {office} starts on {weekday}; blinds on the south side should stay up."},
	{genActor{"analytics", "Analytics"}, "A new report splits freight costs by lane. The first {n} days of data are incomplete, so please do not draw conclusions yet."},
	{genActor{"facilities", "Facilities"}, "The {office} parking garage is repainted from {weekday}; level two is closed for three days."},
	{genActor{"it_service_desk", "IT Service Desk"}, "{n} monitors in the {office} hot-desk area were swapped for newer models. Report flicker to the service desk."},
	{genActor{"people_operations", "People Operations"}, "The {office} summer party is on {weekday} evening; sign-up closes a week before."},
	{genActor{"logistics", "Logistics"}, "A customs broker change for the {office} warehouse takes effect on {weekday}. Inbound paperwork keeps the same format."},
	{genActor{"analytics", "Analytics"}, "Invoice matching rates reached {n} percent after the new three-way match rules went live."},
	{genActor{"office_services", "Office Services"}, "Mail for the {office} office is collected once a day at 14:00 from {weekday} on."},
}

// Sentence templates of the meaningful turns. Verbs take fmt arguments in the order their
// callers give them.
var (
	genIssueTails = []string{
		"",
		" Anything outside these terms needs a new request.",
		" Keep this message with the order file.",
		" Please do not read more into it than it says.",
	}
	genClaimTexts = []string{
		"My reading of %[1]s is that it also covers %[2]s, and anything up to %[3]s, running until %[4]s.",
		"I told the team that %[1]s lets them order %[2]s up to %[3]s until %[4]s; that should keep things moving.",
		"Between us, treat %[1]s as good for %[2]s, up to %[3]s, through %[4]s.",
	}
	genBudgetTexts = []string{
		"The %[1]s budget line still shows %[2]s unspent for this quarter.",
		"Plenty of headroom on the %[1]s cost center: roughly %[2]s left before the quarterly cap.",
		"Forecasts say %[1]s will need about %[2]s more this quarter than planned.",
	}
	genHandoffTexts = []string{
		"Handoff from my notes: %[1]s lets %[2]s order %[3]s from %[4]s up to %[5]s, valid until %[6]s.",
		"Copying the terms from last week's summary: %[1]s, %[2]s, %[3]s from %[4]s, ceiling %[5]s, ends %[6]s.",
		"For whoever picks this up: %[1]s covers %[2]s buying %[3]s from %[4]s, at most %[5]s, until %[6]s.",
	}
)
