// Package docs holds the tests that keep guard's documentation whole: a short README
// that shows the two commands a newcomer needs, relative links that lead somewhere, a
// configuration page that names every .guard.toml key, and a mention of every command
// guard --help lists.
package docs
