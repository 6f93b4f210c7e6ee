package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// addNamingFlags adds the flags that name a lock file in a directory.
func addNamingFlags(cmd *cobra.Command, n *command.LockNaming) {
	f := cmd.Flags()
	f.StringVar(&n.Scope, "scope", "", "the lock's scope (letters, digits, '_' and '-'; default: the whole directory)")
	f.StringVar(&n.Team, "team", "", "a team lock of host `HOST` (LOCK.team[.scope].HOST.txt)")
	f.BoolVar(&n.User, "user", false, "a user lock (removable only by a person)")
	f.BoolVar(&n.Condition, "condition", false, "a condition lock (needs --release-condition)")
	f.StringVar(&n.Until, "until", "", "an until lock that holds until `TIME` (YYYY-MM-DD[THH:MM[:SS]] or RFC 3339)")
	cmd.MarkFlagsMutuallyExclusive("team", "user", "condition", "until")
}

// addHeldLockFlags adds the flags of the commands that act on an existing lock as
// its owner (unlock, renew): the naming flags, with --condition reworded (they have
// no --release-condition), and --owner.
func addHeldLockFlags(cmd *cobra.Command, n *command.LockNaming, owner *string) {
	addNamingFlags(cmd, n)
	f := cmd.Flags()
	f.Lookup("condition").Usage = "the condition lock (LOCK.condition[.scope].txt)"
	f.StringVar(owner, "owner", "", "who you are (default: GUARD_OWNER, .guard.toml owner, <user>@<host>)")
}

// addClaimFlags adds the flags of a claim that guard lock and guard run share.
func addClaimFlags(cmd *cobra.Command, o *command.LockOptions, contested, noContest *bool) {
	addNamingFlags(cmd, &o.LockNaming)
	f := cmd.Flags()
	f.StringVar(&o.Owner, "owner", "", "who holds the lock (default: GUARD_OWNER, .guard.toml owner, <user>@<host>)")
	f.StringVar(&o.Host, "host", "", "the holding machine (default: GUARD_HOST, .guard.toml host, the host name)")
	f.StringVar(&o.Expires, "expires", "", "lifetime, <number><s|m|h|d> (default 24h)")
	// No flag default: an option left out of a renewal keeps the lock's value (an
	// empty mode writes hard on creation).
	f.StringVar(&o.Mode, "mode", "", "hard (refuses) or soft (warns) (default hard)")
	f.StringVar(&o.Purpose, "purpose", "", "why the area is locked")
	f.StringVar(&o.ReleaseCondition, "release-condition", "", "what must happen for the lock to go")
	f.StringVar(&o.Operations, "operations", "", "comma list of the operations the lock blocks (default: all)")
	f.BoolVar(&o.Force, "force", false, "replace a lock of the same name, whoever holds it")
	f.BoolVar(contested, "contested", false, "always run the contest procedure")
	f.BoolVar(noContest, "no-contest", false, "never run the contest procedure")
	// -1 stands for "not given" (the library's default applies); the help shows that
	// default instead of the sentinel.
	f.IntVar(&o.Quarantine, "quarantine", -1, "contest quarantine in seconds")
	f.Lookup("quarantine").DefValue = fmt.Sprint(int(lockcore.DefaultQuarantine / time.Second))
	f.StringVar(&o.Wait, "wait", "0", "wait up to `DURATION` (<number><s|m|h|d>) for a refusing lock to be released, expire or be pruned")
	f.Var(command.ResourceFlag{URI: &o.Resource}, "resource", "lock the resource `URI` (a database, a deployment target, a URL) instead of a folder")
	cmd.MarkFlagsMutuallyExclusive("contested", "no-contest")
}

// contestChoice turns --contested / --no-contest into LockOptions.Contest.
func contestChoice(contested, noContest bool) *bool {
	switch {
	case contested:
		t := true
		return &t
	case noContest:
		f := false
		return &f
	}
	return nil
}

func newLockCmd(env *guard.Env) *cobra.Command {
	o := command.LockOptions{Env: env}
	var contested, noContest bool
	cmd := &cobra.Command{
		Use:   "lock [DIR]",
		Short: "Claim a lock: create the lock file atomically, or renew your own",
		Long: `Claim DIR (default: the current directory) or a scope of it.

RESPECT first: if a live lock of another owner (or a team lock of another host)
covers an overlapping scope in DIR or above, nothing is created (exit 1). The
lock file is created atomically (written aside, synced, then linked into place):
it never exists half-written, and of two racing creators exactly one wins. Your
own live lock is renewed in place; an expired lock is taken over atomically with
a larger fence; --force replaces a lock of the same name deliberately.

Prints the lock's absolute path on stdout and, on stderr, LOCK_FENCE=<n> and
LOCK_FENCE_FILE=<path> for a holder to export. Exit 3: a contested claim lost
and removed its lock.

--wait DURATION waits for a refusing lock to be released, expire or be pruned,
then claims: waiters for overlapping areas on this machine claim in the order they
started waiting, and a claim without --wait does not cut in front of them (exit 1
naming the queue; --force cuts in). When the wait runs out: exit 1, naming the
holder. --resource URI locks
a resource that is not a folder (one lock file per resource in the resources
directory).`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Dir = args[0]
			}
			o.Contest = contestChoice(contested, noContest)
			// Ctrl-C or SIGTERM ends a --wait: the claim is refused, naming the holder.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return command.RunLock(ctx, o)
		},
	}
	addClaimFlags(cmd, &o, &contested, &noContest)
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print a JSON object instead of the path")
	return cmd
}
