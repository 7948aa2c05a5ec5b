#!/bin/sh
# The image's entrypoint, as wiremock/wiremock's: options (or none) after the image's name serve the stub files in
# the working folder (/home/wiremock) on every address of the container, on port 8080 unless --port says otherwise;
# anything else runs as a command. WIREMOCK_OPTIONS is added last, split at spaces.
#
# --open-admin: the admin API needs no credentials, as WireMock's does; only what reaches the container's ports
# reaches it. Give --admin-api-basic-auth user:password (or --admin-token) to ask for them.
set -e
if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
    # WireMock refuses an option given twice: the defaults only where the command line has none.
    case " $* $WIREMOCK_OPTIONS " in *" --root-dir"*) ;; *) set -- --root-dir . "$@" ;; esac
    case " $* $WIREMOCK_OPTIONS " in *" --bind-address"*) ;; *) set -- --bind-address 0.0.0.0 "$@" ;; esac
    set -- stuntdouble serve --open-admin "$@"
fi
# -e uid=1000, as in WireMock's image: the files the server writes (POST /__admin/mappings/save) belong to that user.
if [ -n "$uid" ]; then
    chown -R "$uid:$uid" /home/wiremock
    set -- setpriv --reuid="$uid" --regid="$uid" --init-groups "$@"
fi
# shellcheck disable=SC2086 # split at spaces, as the WireMock image splits it
exec "$@" $WIREMOCK_OPTIONS
