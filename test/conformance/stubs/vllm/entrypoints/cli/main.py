"""vLLM stub: `python -m vllm.entrypoints.cli.main serve MODEL ... --port N`, as AgentJet's debug
backbone starts it (a detached companion, ajet/backbone/main_vllm.py). It really listens on the
port, prints vLLM's ready line ("Application startup complete", which AgentJet waits for) and
answers /v1/models and /v1/chat/completions with a fixed reply carrying token-id logprobs in the
shape AgentJet parses (`token_id:N`, bytes, logprob). No model, no GPU."""
import argparse
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY = "The answer is 42."


def completion(body):
    # One token per byte, id = byte + 2: the ids the transformers stub's tokenizer gives.
    tokens = [{"token": "token_id:%d" % (b + 2), "bytes": [b], "logprob": -0.1, "top_logprobs": []}
              for b in REPLY.encode("utf-8")]
    return {
        "id": "chatcmpl-stub-%d" % int(time.time() * 1000), "object": "chat.completion", "created": int(time.time()),
        "model": body.get("model", "stub"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": REPLY},
                     "logprobs": {"content": tokens}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": len(tokens), "total_tokens": len(tokens) + 1},
    }


class Handler(BaseHTTPRequestHandler):
    def _send(self, code, payload):
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.startswith("/v1/models"):
            self._send(200, {"object": "list", "data": [{"id": self.server.model, "object": "model"}]})
        elif self.path.startswith("/health"):
            self._send(200, {})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path.startswith("/v1/chat/completions"):
            self._send(200, completion(body))
        else:
            self._send(404, {"error": "not found"})

    def log_message(self, fmt, *args):
        sys.stdout.write("INFO:     %s\n" % (fmt % args))
        sys.stdout.flush()


def main():
    if len(sys.argv) < 3 or sys.argv[1] != "serve":
        sys.exit("usage: python -m vllm.entrypoints.cli.main serve MODEL [--port N] ...")
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    known, _ = parser.parse_known_args(sys.argv[3:])
    server = ThreadingHTTPServer((known.host, known.port), Handler)
    server.model = sys.argv[2]
    print("INFO:     Started server process (vLLM stub) on port %d" % known.port, flush=True)
    print("INFO:     Application startup complete.", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
