# olmops build, test and demo targets. Needs only Go (and make).

export GOTOOLCHAIN := local

GO       ?= go
BIN      := bin/olmops
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
TIMEOUT  ?= 10m
FUZZTIME ?= 30s

.PHONY: all build test bench fuzz lint generate verify demo clean deps

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/olmops

# The tests run git's own server (git http-backend): install git when a
# fresh machine lacks it.
deps:
	@command -v git >/dev/null 2>&1 || { \
		echo "installing git (needed by the gitsource tests)"; \
		apt-get update -qq && apt-get install -y -qq git; }

test: deps
	$(GO) vet ./...
	$(GO) test -timeout $(TIMEOUT) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Runs every Fuzz target of every package for FUZZTIME each.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		targets=$$($(GO) test -list 'Fuzz.*' $$pkg); \
		for target in $$(echo "$$targets" | grep '^Fuzz' || true); do \
			echo "==> $$pkg $$target ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

generate:
	$(GO) generate ./...

# Fails when generated files are not committed as generated.
verify: generate
	git diff --exit-code

demo: build
	@echo
	@echo "=== olmops validate examples/catalogs/* ==="
	@./$(BIN) validate examples/catalogs/*
	@echo "all example catalogs are valid"
	@echo
	@echo "=== olmops catalog list channels examples/catalogs/operatorhub ==="
	@./$(BIN) catalog list channels examples/catalogs/operatorhub
	@echo
	@echo "=== olmops catalog list bundles examples/catalogs/internal ==="
	@./$(BIN) catalog list bundles examples/catalogs/internal
	@echo
	@echo "=== olmops graph examples/catalogs/operatorhub etcd (Mermaid) ==="
	@./$(BIN) graph examples/catalogs/operatorhub etcd
	@echo
	@echo "=== olmops graph examples/catalogs/internal acme-db --channel candidate -o dot (Graphviz) ==="
	@./$(BIN) graph examples/catalogs/internal acme-db --channel candidate -o dot
	@echo
	@echo "=== olmops resolve --catalog examples/catalogs/operatorhub --catalog examples/catalogs/internal --subscriptions examples/clusters/prod-east/subscriptions/*.yaml ==="
	@./$(BIN) resolve --catalog examples/catalogs/operatorhub --catalog examples/catalogs/internal --subscriptions examples/clusters/prod-east/subscriptions/*.yaml

clean:
	rm -rf bin
