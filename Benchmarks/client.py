#!/usr/bin/env python3
"""A fixed HTTP/1.1 load for instruction counts: COUNT requests over CONNECTIONS keep-alive connections, paths
spread over STUBS stubs (request k asks for /items/((k * 7919) mod STUBS)), each response read whole before the
next request on its connection. Deterministic: the same bytes every run.

    client.py PORT COUNT [CONNECTIONS] [STUBS] [PREFIX]
"""
import selectors
import socket
import sys

port, count = int(sys.argv[1]), int(sys.argv[2])
connections = int(sys.argv[3]) if len(sys.argv) > 3 else 4
stubs = int(sys.argv[4]) if len(sys.argv) > 4 else 1
prefix = sys.argv[5] if len(sys.argv) > 5 else "/items/"


def request(k):
    return f"GET {prefix}{(k * 7919) % stubs} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: client.py\r\n\r\n".encode()


def response_length(buffer):
    """The length of the first whole response in buffer, or None."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        return None
    head = buffer[:end].decode("latin-1").lower()
    length = 0
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.strip() == "content-length":
            length = int(value.strip())
    return end + 4 + length if len(buffer) >= end + 4 + length else None


selector = selectors.DefaultSelector()
sent = 0
done = 0
state = {}
for _ in range(min(connections, count)):
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.sendall(request(sent))
    sent += 1
    state[sock] = b""
    selector.register(sock, selectors.EVENT_READ)
while done < count:
    for key, _ in selector.select(timeout=60):
        sock = key.fileobj
        data = sock.recv(65536)
        if not data:
            sys.exit(f"the server closed a connection after {done} responses")
        buffer = state[sock] + data
        while (length := response_length(buffer)) is not None:
            status = buffer[9:12]
            if status != b"200":
                sys.exit(f"status {status.decode()} for a request")
            buffer = buffer[length:]
            done += 1
            if sent < count:
                sock.sendall(request(sent))
                sent += 1
        state[sock] = buffer
print(done)
