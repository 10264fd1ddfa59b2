"""Start moto's DynamoDB-compatible server on 127.0.0.1 for faceteer's tests and examples.

Prints `PORT <n>` once listening, then serves until its parent process exits (so a test
binary that dies never leaves a server behind) or stdin closes.
"""
import os
import sys
import threading
import time

from moto.server import ThreadedMotoServer


def main() -> None:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    parent = os.getppid()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    _, bound = server.get_host_and_port()
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
