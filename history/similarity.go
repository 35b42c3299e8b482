package history

// Similarity is how alike an iteration was to the one before it in the same invocation of
// the loop, as the stagnation check measured it (absent from the first iteration, and when
// the check is off).
type Similarity struct {
	// Message is the percentage of lines the agent's final message shares with the
	// previous one's; absent when neither had one.
	Message *int `toml:"message,omitempty" json:"message,omitempty"`
	// Validation is the same for what the validation failure said; absent when validation
	// failed in neither iteration.
	Validation *int `toml:"validation,omitempty" json:"validation,omitempty"`
	// Oscillation: the working tree went back to its content of two iterations ago.
	Oscillation bool `toml:"oscillation,omitempty" json:"oscillation,omitempty"`
	// Repeats is how many iterations in a row were alike, this one included: 1 when it
	// repeated nothing.
	Repeats int `toml:"repeats" json:"repeats"`
	// Nudged: the next prompt tells the agent it is repeating the same attempt.
	Nudged bool `toml:"nudged,omitempty" json:"nudged,omitempty"`
	// Coarse: a comparison ran into its time limit, so the percentages are lower bounds.
	Coarse bool `toml:"coarse,omitempty" json:"coarse,omitempty"`
}
