// Package agente2e drives the real coding-agent CLIs (Claude Code, Gemini CLI, Codex)
// offline, for end-to-end tests of the hooks guard installs into them. It holds a fake
// model server on 127.0.0.1 that speaks just enough of each vendor's API (Anthropic
// Messages, Gemini streamGenerateContent, OpenAI Responses, all streamed) to make the
// agent run a shell command and then stop, and the helpers that find the CLIs where
// .ci/setup-agent-clis installs them and run them in a home folder of the test's own.
//
// It is test-only infrastructure: nothing in guard's binary imports it.
package agente2e
