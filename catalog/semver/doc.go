// Package semver parses the version ranges OLM users and catalogs write and
// tests versions against them. There are two syntaxes, and they are not the
// same language:
//
//   - ParseRange reads an OLM v1 range (a ClusterExtension's
//     spec.source.catalog.version). It accepts exactly what the v1 API
//     admits (at most 64 characters, the API's expression grammar) and then
//     means what operator-controller means, which is Masterminds semver
//     constraints: = != > < >= <= (also => =<), wildcards x X * in any
//     position, ~ (also ~>) and ^, comma or space for AND, || for OR, an
//     optional "v" prefix and partial versions ("1", "1.2").
//   - ParseClassicRange reads an OLM classic range (a channel entry's
//     skipRange, an olm.package.required versionRange), with blang/semver
//     semantics: space for AND, " || " (with spaces) for OR, operators
//     = == != ! > >= < <=, strict major.minor.patch versions with no "v"
//     prefix, and only the wildcard x (lower case) in "1.x" or "1.2.x".
//
// The differences that change answers:
//
//   - Pre-releases: a v1 range only matches a pre-release version when an
//     AND group of the range itself names a pre-release (">=1.0.0" does not
//     match 1.1.0-rc.1; ">=1.1.0-0" does). A classic range compares by
//     semver precedence alone (">=1.0.0" matches 1.1.0-rc.1, "<2.0.0"
//     matches 2.0.0-rc.1).
//   - Partial versions: v1 fills missing parts as wildcards ("<2" is
//     "<2.0.0", "~1.2" is ">=1.2.0 <1.3.0"); classic rejects them.
//   - Build metadata is ignored by both when comparing.
//   - Classic quirks kept for parity: "||" must stand alone between spaces;
//     a one-character term is dropped by the splitter; "!=1.2.x" can never
//     match (blang expands it to "<1.2.0 >=1.3.0", both required).
//
// The package also reads bundle versions the way OLM v1 orders them:
// registry+v1 bundles carry a release in their build metadata ("1.0.0+2" is
// version 1.0.0, release 2). See VersionRelease.
package semver
