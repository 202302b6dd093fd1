// Package review compares the desired state at two commits of a
// repository, the base and the head of a pull request, and says what
// merging the head would do:
//
//   - validation problems of olmops.yaml, the catalogs, the clusters'
//     subscriptions and their committed plans, each new with the head,
//     already present at the base, or fixed; problems are matched by what
//     they are about and their message, not by line, since lines move;
//   - the upgrade-graph diff of every package the head changes;
//   - the impact: for every cluster and subscription, the bundle it
//     resolves to at the base and at the head, and what the planner will do
//     about it after the merge; a subscription that stops resolving is an
//     error explained in the resolver's words;
//   - stale or missing plans (the semantics of plan --check) of the
//     clusters whose files the head changes.
//
// Compare is the pure core: two Trees (each an fs.FS of one commit) in, a
// Report out. Run is the edge: it reads the two commits from a
// gitsource.Repo and runs the planner's check. A Report renders as text,
// JSON, GitHub workflow commands (annotations within GitHub's caps) and a
// Markdown job summary; Failed says whether the review fails.
//
// Impact is computed with the resolver only, never by rendering manifests,
// so that a review of a fleet stays fast; rendering is what the plan check
// does, and it is limited to the clusters a reviewer changed by hand (see
// PlanScope).
package review
