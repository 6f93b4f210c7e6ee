# The release container image, built by goreleaser (dockers_v2) from the binaries it
# just built: guard on Alpine, with git for the hooks and `guard ci`.
FROM alpine:3.20
ARG TARGETPLATFORM
RUN apk add --no-cache git
COPY ${TARGETPLATFORM}/guard /usr/local/bin/guard
ENTRYPOINT ["/usr/local/bin/guard"]
