package agentcheck

import "fmt"

// APIKey is the check of an in-process agent (an API preset), which has no program: the
// model it needs and the variable its key is read from. keyEnv is that variable, set
// whether it holds a key, optional whether the server may need none (a local one).
// Only the variable's name is ever shown, never its value.
func APIKey(preset, model, keyEnv string, set, optional bool) Result {
	r := apiKey(preset, model, keyEnv, set, optional)
	r.InProcess, r.KeyEnv = true, keyEnv
	return r
}

func apiKey(preset, model, keyEnv string, set, optional bool) Result {
	switch {
	case model == "":
		return Result{Program: preset, Problem: fmt.Sprintf("agent %s needs a model, and none is named", preset),
			Hint: "pass --model NAME, or set model = \"NAME\" in your config"}
	case set:
		return Result{OK: true, Program: preset, Note: fmt.Sprintf("in-process, model %s, key from %s", model, keyEnv)}
	case optional:
		return Result{OK: true, Program: preset, Note: fmt.Sprintf("in-process, model %s, no key sent (%s is not set)", model, keyEnv)}
	}
	return Result{Program: preset, Problem: fmt.Sprintf("agent %s needs an API key: %s is not set", preset, keyEnv),
		Hint: fmt.Sprintf("export %s=… in the environment the loop runs in (for cron too), or name another variable with api_key_env", keyEnv)}
}
