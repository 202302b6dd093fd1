// Package pushhook receives the push webhooks of Git forges for olmops
// serve, so that a Repository is fetched as soon as its branch moves instead
// of at its next interval; and GitHub's commit status events, so that a
// Planner waiting on a followed cluster's report plans when it comes.
//
// Handler, mounted at Path, takes POST deliveries from
//   - GitHub: event in X-GitHub-Event, signature in X-Hub-Signature-256 as
//     sha256=<hex HMAC-SHA256 of the body>; the body is JSON, or
//     form-encoded as payload=<JSON>;
//   - Gitea and Forgejo: event in X-Gitea-Event or X-Forgejo-Event,
//     signature in X-Gitea-Signature or X-Forgejo-Signature as the bare hex
//     HMAC-SHA256 (of the JSON payload, also when it is sent form-encoded);
//   - GitLab: event in X-Gitlab-Event ("Push Hook"), and X-Gitlab-Token
//     holding the secret itself.
//
// When a request carries several signature headers, the first of
// X-Hub-Signature-256, X-Forgejo-Signature, X-Gitea-Signature,
// X-Gitlab-Token decides. Every comparison is constant-time. GitHub's SHA-1
// X-Hub-Signature is not accepted.
//
// Replies are short plain text, and never hold the secret, a signature or
// a header's value:
//   - 200 "pong" to a ping; 200 "no repository matches" when notify queued
//     nothing; 202 "queued N repositories" when it queued N;
//   - for a status event (GitHub's "status", when NewHandler was given a
//     Status receiver): 202 "queued N followers", or 200 when it queued
//     none;
//   - 202 "ignored: ..." for events other than push (and status, above),
//     tag pushes, branch deletions (deleted: true, or an after of zeros)
//     and refs outside refs/heads/;
//   - 400 for a payload that is not JSON (naming the byte offset), has no
//     ref or no repository URL, or a request without an event header;
//   - 401 for a missing, malformed or wrong signature, naming the header
//     checked; 403 for every request when the secret is empty;
//   - 405 for a method other than POST; 413 for a body over MaxBodyBytes
//     (GitHub's 25 MB cap) or a JSON value over MaxTokenBytes; 415 for a
//     Content-Type other than JSON or form; 429 while MaxInFlight
//     deliveries are being read.
//
// Why a signature: the endpoint must be reachable from the forge, so anyone
// can reach it. Verified, a push still only triggers a fetch: notify queues
// the Repositories the push Matches, and what is applied is what the fetch
// finds on the branch, never what the payload says. Signatures carry no
// timestamp, so a captured delivery can be replayed; the worst it does is
// an early fetch. GitLab's token authenticates the sender but not the body,
// so deliveries should travel over TLS.
//
// Memory is bounded whoever sends: a missing or malformed signature header,
// a wrong GitLab token and a declared length over MaxBodyBytes are refused
// before a byte of the body is read; otherwise the body streams through the
// HMAC and a JSON token scanner that keeps only the fields a push needs, so
// a delivery holds at most MaxTokenBytes however long it is, and at most
// MaxInFlight deliveries are read at once (429 with Retry-After beyond).
// A payload's errors are reported only once its signature verifies. The
// server that mounts Handler bounds how long a sender may take.
//
// SameRepository decides which Repository objects a push names: a
// Repository's URL and the payload's clone, ssh and web URLs match across
// schemes, credentials, host case, default ports and a trailing ".git".
package pushhook
