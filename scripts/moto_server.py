"""Start moto's DynamoDB-compatible server on 127.0.0.1 for faceteer's tests and examples.

Prints `PORT <n>` once listening, then serves until its parent process exits (so a test
binary that dies never leaves a server behind) or stdin closes.

Requests are served one at a time: moto's DynamoDB backend is not thread-safe, and two
concurrent `TransactWriteItems` can both pass their conditions before either applies
(two records would own one unique value). DynamoDB applies each request atomically;
serving them in turn is the same model.
"""
import os
import sys
import threading
import time

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import make_server


def main() -> None:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    parent = os.getppid()
    app = DomainDispatcherApplication(create_backend_app)
    lock = threading.Lock()

    def one_at_a_time(environ, start_response):
        with lock:
            return list(app(environ, start_response))

    server = make_server(
        "127.0.0.1", port, one_at_a_time, True, request_handler=MotoRequestHandler
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    bound = server.server_address[1]
    print(f"PORT {bound}", flush=True)

    def watch_stdin() -> None:
        try:
            sys.stdin.read()
        finally:
            os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


if __name__ == "__main__":
    main()
