package oci

import (
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// mirror is a Mirror with its names normalised the way references are
// (docker.io becomes index.docker.io), so prefixes compare.
type mirror struct {
	source      string
	mirrors     []string
	mirrorsOnly bool
}

func parseMirrors(ms []Mirror, opts []name.Option) ([]mirror, error) {
	out := make([]mirror, 0, len(ms))
	for i, m := range ms {
		src, err := normalizeRepo(m.Source, opts)
		if err != nil {
			return nil, fmt.Errorf("mirrors[%d].source: %w", i, err)
		}
		if len(m.Mirrors) == 0 {
			return nil, fmt.Errorf("mirrors[%d] (%s): no mirrors", i, m.Source)
		}
		nm := mirror{source: src, mirrorsOnly: m.NeverContactSource}
		for j, t := range m.Mirrors {
			n, err := normalizeRepo(t, opts)
			if err != nil {
				return nil, fmt.Errorf("mirrors[%d].mirrors[%d]: %w", i, j, err)
			}
			nm.mirrors = append(nm.mirrors, n)
		}
		out = append(out, nm)
	}
	return out, nil
}

// normalizeRepo accepts a registry, a namespace or a repository.
func normalizeRepo(s string, opts []name.Option) (string, error) {
	if !strings.Contains(s, "/") {
		r, err := name.NewRegistry(s, opts...)
		if err != nil {
			return "", err
		}
		return r.Name(), nil
	}
	r, err := name.NewRepository(s, opts...)
	if err != nil {
		return "", err
	}
	return r.Name(), nil
}

// candidates lists where to fetch ref from, in order: the mirrors of the
// longest matching source, then ref itself unless that source forbids it.
func (p *Puller) candidates(ref name.Reference) ([]name.Reference, error) {
	repo := ref.Context().Name()
	var best *mirror
	for i := range p.mirrors {
		m := &p.mirrors[i]
		if (repo == m.source || strings.HasPrefix(repo, m.source+"/")) && (best == nil || len(m.source) > len(best.source)) {
			best = m
		}
	}
	if best == nil {
		return []name.Reference{ref}, nil
	}
	rest := strings.TrimPrefix(repo, best.source)
	var out []name.Reference
	for _, m := range best.mirrors {
		r, err := name.NewRepository(m+rest, p.nameOpt...)
		if err != nil {
			return nil, fmt.Errorf("mirror %s for %s: %w", m, repo, err)
		}
		out = append(out, withIdentifier(r, ref))
	}
	if !best.mirrorsOnly {
		out = append(out, ref)
	}
	return out, nil
}

// withIdentifier puts ref's tag or digest on repository r.
func withIdentifier(r name.Repository, ref name.Reference) name.Reference {
	if d, ok := ref.(name.Digest); ok {
		return r.Digest(d.DigestStr())
	}
	return r.Tag(ref.Identifier())
}

// pinned spells a digest reference without its tag, with Docker Hub as
// people write it.
func pinned(d name.Digest) string {
	repo := d.Context()
	host := repo.RegistryStr()
	if host == name.DefaultRegistry {
		host = "docker.io"
	}
	return host + "/" + repo.RepositoryStr() + "@" + d.DigestStr()
}
