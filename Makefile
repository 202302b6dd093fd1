# olmops build, test and demo targets. Needs only Go (and make).

export GOTOOLCHAIN := local

GO       ?= go
BIN      := bin/olmops
# The CLI is built with the olmops_cli tag: it leaves the cluster commands
# (apply, diff, serve, reconcile, suspend, resume) and the client-go and
# controller-runtime packages they link, whose initialisers would run on
# every command, to CONTROLLER, the full build, which it runs for them
# (cmd/olmops/controller.go). The image ships the full build.
CONTROLLER := bin/olmops-controller
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo dev)
# -s -w: no symbol table or DWARF in the binary people run; the profiles
# and debuggers of development use go build or go test without them.
LDFLAGS  := -s -w -X main.version=$(VERSION)
# Every build leaves out kustomize's loader of Go plugins (olmops never
# loads one): a binary that links package plugin with cgo exports all its
# symbols dynamically and keeps methods the linker would drop, 12 MB more
# executable, and the kernel maps a binary's pages in whole folios, so a
# command's RSS grows with the file whatever it runs. CGO_ENABLED=0 makes
# bin/ the same static binaries as dist and the image.
GOTAGS     := kustomize_disable_go_plugin_support
CLI_GOTAGS := olmops_cli,$(GOTAGS)
TIMEOUT  ?= 15m
FUZZTIME ?= 30s

# envtest's control plane (kube-apiserver + etcd) is built from the pins in
# tools/envtest by hack/envtest-build.sh into a folder named after a hash of
# everything that decides the binaries, so changing a pin builds a new folder
# and CI can cache .cache/envtest as a whole.
ENVTEST_KEY    := $(shell { cat tools/envtest/go.mod tools/envtest/go.sum hack/envtest-build.sh; uname -sm; } 2>/dev/null | { sha256sum 2>/dev/null || shasum -a 256; } | cut -c1-12)
ENVTEST_ASSETS := $(CURDIR)/.cache/envtest/$(ENVTEST_KEY)

# controller-gen writes api/'s deepcopy functions and CRD manifests. It is
# built once per version into its own folder (go install works here: its
# go.mod has no replace directives); v0.23 pairs with k8s.io/* v0.37.
CONTROLLER_TOOLS_VERSION ?= v0.23.0
CONTROLLER_GEN := $(CURDIR)/.cache/tools/$(CONTROLLER_TOOLS_VERSION)/controller-gen
# What generate writes: verify compares these with the committed tree.
GENERATED := '*zz_generated.*.go' config/crd/bases

.PHONY: all build test bench olmbench fuzz lint generate verify demo clean deps envtest envtest-mod image dist

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -tags $(CLI_GOTAGS) -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/olmops
	CGO_ENABLED=0 $(GO) build -trimpath -tags $(GOTAGS) -ldflags '$(LDFLAGS)' -o $(CONTROLLER) ./cmd/olmops

# The tests run git's own server (git http-backend) and OpenSSH's sshd
# (SSH git auth, on 127.0.0.1): install them when a fresh machine lacks them.
deps:
	@command -v git >/dev/null 2>&1 || { \
		echo "installing git (needed by the gitsource tests)"; \
		apt-get update -qq && apt-get install -y -qq git; }
	@test -x /usr/sbin/sshd || { \
		echo "installing openssh-server (needed by the gitsource SSH tests)"; \
		apt-get update -qq && apt-get install -y -qq openssh-server; }

# Builds the control plane once per key (about 5 min cold); a no-op when the
# folder exists. Prints the KUBEBUILDER_ASSETS to export for a plain go test.
envtest:
	@bash hack/envtest-build.sh $(ENVTEST_ASSETS)
	@echo "KUBEBUILDER_ASSETS=$(ENVTEST_ASSETS)"

# Regenerates tools/envtest/go.mod and go.sum from k8s.io/kubernetes's own
# go.mod (KUBE_VERSION, ETCD_VERSION override the pins).
envtest-mod:
	bash hack/envtest-mod.sh

test: deps envtest
	$(GO) vet ./...
	$(GO) vet -tags olmops_cli ./cmd/olmops
	KUBEBUILDER_ASSETS=$(ENVTEST_ASSETS) $(GO) test -timeout $(TIMEOUT) ./...
	# bin/olmops is the olmops_cli build: its own commands and the hand-over.
	$(GO) test -tags olmops_cli ./cmd/olmops

bench: deps envtest
	KUBEBUILDER_ASSETS=$(ENVTEST_ASSETS) $(GO) test -run '^$$' -bench . -benchmem ./...

# olmops's resolver and OLM classic's (v0.46.0, built outside this module by
# hack/olmbench.sh) on the PEERS.md workloads, interleaved ROUNDS times.
ROUNDS ?= 5
olmbench:
	bash hack/resolver-vs-olm.sh $(ROUNDS)

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

$(CONTROLLER_GEN):
	GOBIN=$(@D) $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)

# The CRD folder is emptied first so that a renamed or deleted kind leaves
# no stale manifest behind.
generate: $(CONTROLLER_GEN)
	rm -f config/crd/bases/*.yaml
	$(CONTROLLER_GEN) object crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(GO) generate ./...

# Fails when generated files differ from the committed ones, or are not
# committed at all: run make generate and commit what it changes.
verify: generate
	@out=$$(git status --porcelain --untracked-files=all -- $(GENERATED)); \
	if [ -n "$$out" ]; then \
		echo "generated files are not committed as make generate writes them:"; \
		echo "$$out"; git --no-pager diff --stat -- $(GENERATED); exit 1; \
	fi

# The whole loop on this machine, no cluster and no GitHub needed: a control
# plane per cluster (envtest's binaries), a local git server with examples/,
# olmops plan and olmops serve, a Manual plan approved with a git merge.
# DEMO_TIMEOUT bounds it; it cleans up after itself, also on Ctrl-C.
DEMO_TIMEOUT ?= 3m

demo: deps build envtest
	KUBEBUILDER_ASSETS=$(ENVTEST_ASSETS) $(GO) run ./test/demo --olmops $(CONTROLLER) --timeout $(DEMO_TIMEOUT)

# The container image, built without a daemon (hack/image): a static,
# stripped binary per platform in one layer on no base image, user
# 65532, OCI labels. IMAGE=registry/repo:tag pushes it (credentials from the
# docker config); otherwise it is written as an OCI layout to IMAGE_LAYOUT.
# File times and the config's date come from the last commit, so the same
# commit gives the same digest.
IMAGE           ?=
IMAGE_LAYOUT    ?= bin/image/oci
IMAGE_PLATFORMS ?= linux/amd64 linux/arm64
IMAGE_SOURCE    ?= https://github.com/olmops/olmops
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

image:
	@set -e; bins=; for p in $(IMAGE_PLATFORMS); do \
		out=bin/image/$$(echo $$p | tr / _)/olmops; \
		echo "building $$out"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -tags $(GOTAGS) -ldflags '$(LDFLAGS)' -o $$out ./cmd/olmops; \
		bins=$$bins$${bins:+,}$$p=$$out; \
	done; \
	$(GO) run ./hack/image --binary $$bins --version $(VERSION) --revision "$$(git rev-parse HEAD 2>/dev/null)" \
		--source $(IMAGE_SOURCE) --created $(SOURCE_DATE_EPOCH) $(if $(IMAGE),--push $(IMAGE),--layout $(IMAGE_LAYOUT))

# What a release publishes besides the image: stripped static binaries
# for DIST_PLATFORMS, the install bundle pinned to DIST_IMAGE, and their
# SHA-256 sums (the Action verifies the binary against them).
DIST_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
DIST_IMAGE     ?= ghcr.io/olmops/olmops:$(VERSION)

dist:
	@rm -rf dist && mkdir -p dist
	@set -e; for p in $(DIST_PLATFORMS); do \
		plat=$$(echo $$p | tr / _); echo "building dist/olmops_$$plat and dist/olmops-controller_$$plat"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -tags $(CLI_GOTAGS) -ldflags '$(LDFLAGS)' -o dist/olmops_$$plat ./cmd/olmops; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -tags $(GOTAGS) -ldflags '$(LDFLAGS)' -o dist/olmops-controller_$$plat ./cmd/olmops; \
	done
	$(GO) run ./hack/bundle --image $(DIST_IMAGE) > dist/install.yaml
	cd dist && sha256sum olmops_* olmops-controller_* install.yaml > checksums.txt

clean:
	rm -rf bin dist
