# Sourced by Scripts/openapi-conformance and Scripts/openapi-generated-values: schemathesis and connexion (PyPI,
# pinned) in .build/openapi-venv, installed when missing; sets VENV, and binary: the server to try,
# .build/debug/stuntdouble (built when missing) or $STUNTDOUBLE.
SCHEMATHESIS="schemathesis==4.32.5"
CONNEXION="connexion[swagger-ui,uvicorn,mock]==3.3.0"
VENV=.build/openapi-venv
wanted="$SCHEMATHESIS $CONNEXION"
if [ ! -x "$VENV/bin/st" ] || [ "$(cat "$VENV/.installed" 2>/dev/null)" != "$wanted" ]; then
    echo "installing $SCHEMATHESIS and $CONNEXION (PyPI) into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "$SCHEMATHESIS" "$CONNEXION"
    echo "$wanted" >"$VENV/.installed"
fi
binary=${STUNTDOUBLE:-.build/debug/stuntdouble}
if [ ! -x "$binary" ]; then
    echo "building stuntdouble ..."
    swift build --product stuntdouble >/dev/null
fi
