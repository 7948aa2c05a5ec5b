"""Serves an OpenAPI 3.0 document with connexion's mock resolver: what `connexion run DOC --mock=all` does, but
with the API at the root (whatever the document's servers say), no auto-reload (uvicorn's reloader forks a
watcher that outlives a terminated parent) and quiet logs. The document's security schemes name this file's
functions, which take any credentials (without one, connexion answers 401 to everything).

    python connexion_mock.py DOC PORT
"""
import logging
import os
import sys

import connexion
import uvicorn
from connexion.mock import MockResolver


def any_token(token):
    """x-bearerInfoFunc (and x-tokenInfoFunc): every token is good."""
    return {"sub": "conformance"}


def any_user(username, password, required_scopes=None):
    """x-basicInfoFunc: every user and password is good."""
    return {"sub": username}


def any_key(key, required_scopes=None):
    """x-apikeyInfoFunc: every key is good."""
    return {"sub": "conformance"}


class Mock(MockResolver):
    """connexion's MockResolver, answering with the content type of the response it picks. connexion 3.3.0's
    own answers 500 ("Multiple response content types are defined in the operation spec, but the handler
    response did not specify which one to return") for any operation whose responses have more than one media
    type between them, such as application/json for 200 and application/problem+json for 400."""

    def mock_operation(self, operation, *args, **kwargs):
        responses = operation.responses
        code = sorted(responses.keys())[0] if responses else None
        types = list(((responses.get(code) or {}).get("content") or {}).keys()) if code else []
        content_type = next((name for name in types if "json" in name), types[0] if types else None)
        body, status = operation.example_response(status_code=code, content_type=content_type)
        if content_type is None or status == 204:
            return body, status
        return body, status, {"Content-Type": content_type}


def main():
    document, port = sys.argv[1], int(sys.argv[2])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    logging.basicConfig(level=logging.ERROR)
    app = connexion.AsyncApp(__name__)
    # The same arguments as connexion's CLI for `run DOC --mock=all` (connexion/cli.py create_app), base_path
    # "" instead of the servers' path so that the same request paths reach both mocks, and Mock for
    # MockResolver.
    app.add_api(document, base_path="", resolver=Mock(mock_all=True), validate_responses=False,
                strict_validation=False)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error")


if __name__ == "__main__":
    main()
