#!/usr/bin/python3
"""Component microbenchmarks of an LLM request's path outside the GPU steps.

Each figure prices one step of vLLM V1's OpenAI API server path (docs/engine.md,
"Request path"), measured with the same libraries the engines use, as Debian
packages them (README.md lists how their versions differ from vLLM's pins):

  http      aiohttp client -> uvicorn (uvloop + httptools) + FastAPI, a pydantic
            chat/completions request; time to the first SSE `data:` chunk, and to a
            small JSON answer
  template  jinja2 ImmutableSandboxedEnvironment rendering of the Llama-3 chat
            template, compiled once
  ipc       pyzmq over ipc:// between two processes (ROUTER->DEALER requests,
            PUSH->PULL outputs), msgpack-encoded, one-way
  handoff   queue.Queue wake-up across threads, asyncio.Queue / asyncio.Event
            wake-up within a uvloop loop
  hash      prefix-caching block hash: sha256 over pickle of
            (parent hash, 16 token ids, extra keys)
  stream    server and client CPU per streamed SSE chunk, 1/16/64 streams

Prints one JSON object (all times in microseconds, medians unless named
otherwise). Runs in well under two minutes on two cores:
    /usr/bin/python3 bench/request_path/measure.py > run1.json
"""

import asyncio
import hashlib
import json
import os
import pickle
import platform
import queue
import random
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Union

# Two cores: the client (this process) on one, the server / engine-side
# process on the other, as the API server and EngineCore run on separate cores.
CLIENT_CPU = 0
SERVER_CPU = 1


def pin(cpu: int) -> None:
    if hasattr(os, "sched_setaffinity") and os.cpu_count() and os.cpu_count() > cpu:
        os.sched_setaffinity(0, {cpu})


def us(seconds: float) -> float:
    return round(seconds * 1e6, 3)


def median_us(samples_s: List[float]) -> float:
    return us(statistics.median(samples_s))


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# ---------------------------------------------------------------------------
# Request / response models shaped like vLLM's protocol classes
# (vllm/entrypoints/openai/chat_completion/protocol.py ChatCompletionRequest,
# ChatCompletionStreamResponse). Written for pydantic 1.10 (Debian); vLLM uses
# pydantic 2, whose validation core is compiled Rust.
# ---------------------------------------------------------------------------
from pydantic import BaseModel, Field  # noqa: E402


class ContentPart(BaseModel):
    type: str
    text: Optional[str] = None


class ChatMessage(BaseModel):
    role: str
    content: Union[str, List[ContentPart], None] = None
    name: Optional[str] = None
    tool_call_id: Optional[str] = None
    tool_calls: Optional[List[Dict[str, Any]]] = None


class StreamOptions(BaseModel):
    include_usage: Optional[bool] = True
    continuous_usage_stats: Optional[bool] = False


class ChatCompletionRequest(BaseModel):
    # OpenAI fields
    messages: List[ChatMessage]
    model: Optional[str] = None
    frequency_penalty: Optional[float] = 0.0
    logit_bias: Optional[Dict[str, float]] = None
    logprobs: Optional[bool] = False
    top_logprobs: Optional[int] = 0
    max_tokens: Optional[int] = None
    max_completion_tokens: Optional[int] = None
    n: Optional[int] = 1
    presence_penalty: Optional[float] = 0.0
    response_format: Optional[Dict[str, Any]] = None
    seed: Optional[int] = None
    stop: Union[str, List[str], None] = None
    stream: Optional[bool] = False
    stream_options: Optional[StreamOptions] = None
    temperature: Optional[float] = None
    top_p: Optional[float] = None
    tools: Optional[List[Dict[str, Any]]] = None
    tool_choice: Union[str, Dict[str, Any], None] = "none"
    parallel_tool_calls: Optional[bool] = False
    user: Optional[str] = None
    # vLLM sampling extras
    use_beam_search: bool = False
    top_k: Optional[int] = None
    min_p: Optional[float] = None
    repetition_penalty: Optional[float] = None
    length_penalty: float = 1.0
    stop_token_ids: Optional[List[int]] = None
    include_stop_str_in_output: bool = False
    ignore_eos: bool = False
    min_tokens: int = 0
    skip_special_tokens: bool = True
    spaces_between_special_tokens: bool = True
    truncate_prompt_tokens: Optional[int] = None
    prompt_logprobs: Optional[int] = None
    allowed_token_ids: Optional[List[int]] = None
    bad_words: List[str] = Field(default_factory=list)
    # vLLM extra params
    echo: bool = False
    add_generation_prompt: bool = True
    continue_final_message: bool = False
    add_special_tokens: bool = False
    documents: Optional[List[Dict[str, str]]] = None
    chat_template: Optional[str] = None
    chat_template_kwargs: Optional[Dict[str, Any]] = None
    mm_processor_kwargs: Optional[Dict[str, Any]] = None
    structured_outputs: Optional[Dict[str, Any]] = None
    priority: int = 0
    request_id: str = Field(default_factory=lambda: os.urandom(16).hex())
    logits_processors: Optional[List[Any]] = None
    return_tokens_as_token_ids: Optional[bool] = None
    return_token_ids: Optional[bool] = None
    cache_salt: Optional[str] = None
    kv_transfer_params: Optional[Dict[str, Any]] = None
    vllm_xargs: Optional[Dict[str, Union[str, int, float]]] = None


class DeltaMessage(BaseModel):
    role: Optional[str] = None
    content: Optional[str] = None
    reasoning_content: Optional[str] = None
    tool_calls: List[Dict[str, Any]] = Field(default_factory=list)


class ChatCompletionResponseStreamChoice(BaseModel):
    index: int
    delta: DeltaMessage
    logprobs: Optional[Dict[str, Any]] = None
    finish_reason: Optional[str] = None
    stop_reason: Union[int, str, None] = None


class ChatCompletionStreamResponse(BaseModel):
    id: str
    object: str = "chat.completion.chunk"
    created: int = Field(default_factory=lambda: int(time.time()))
    model: str
    choices: List[ChatCompletionResponseStreamChoice]
    usage: Optional[Dict[str, int]] = None


class SmallResponse(BaseModel):
    id: str
    object: str = "chat.completion"
    model: str
    choices: List[Dict[str, Any]]


def stream_chunk(request_id: str, model: str, content: Optional[str], role: Optional[str] = None) -> str:
    """One SSE event as vLLM's chat_completion_stream_generator writes it:
    the pydantic chunk, model_dump_json(exclude_unset=True), framed as data: ...\\n\\n."""
    delta = DeltaMessage(role=role, content=content) if role else DeltaMessage(content=content)
    chunk = ChatCompletionStreamResponse(
        id=request_id,
        model=model,
        choices=[ChatCompletionResponseStreamChoice(index=0, delta=delta, logprobs=None, finish_reason=None)],
    )
    return f"data: {chunk.json(exclude_unset=True)}\n\n"


# ---------------------------------------------------------------------------
# The server (run in a child process with --serve PORT)
# ---------------------------------------------------------------------------
def build_app():
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, StreamingResponse

    app = FastAPI()
    ticks = {"event": None}

    @app.post("/v1/chat/completions")
    async def create_chat_completion(request: ChatCompletionRequest):
        if not request.stream:
            body = SmallResponse(
                id="chatcmpl-" + request.request_id,
                model=request.model or "m",
                choices=[{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
            )
            return JSONResponse(content=body.dict())

        async def first_chunk_only():
            # The role chunk vLLM writes on the first engine output, then the end.
            yield stream_chunk(request.request_id, request.model or "m", "", role="assistant")
            yield "data: [DONE]\n\n"

        return StreamingResponse(first_chunk_only(), media_type="text/event-stream")

    @app.post("/stream")
    async def stream(request: ChatCompletionRequest):
        """max_tokens chunks; paced by the shared tick event when one is running,
        else back to back (each yield is one ASGI send, one transport write)."""
        n_chunks = request.max_tokens or 1
        event: Optional[asyncio.Event] = ticks["event"]

        async def gen():
            yield stream_chunk(request.request_id, request.model or "m", "", role="assistant")
            for _ in range(n_chunks):
                if event is not None:
                    await event.wait()
                else:
                    await asyncio.sleep(0)
                yield stream_chunk(request.request_id, request.model or "m", " tok")
            yield "data: [DONE]\n\n"

        return StreamingResponse(gen(), media_type="text/event-stream")

    @app.get("/cpu")
    async def cpu():
        return {"cpu_s": cpu_s()}

    @app.post("/ticker")
    async def ticker(body: Dict[str, float]):
        """Start (period_s > 0) or stop (0) a task that wakes every paced stream once a
        period, as vLLM's output_handler wakes each request's collector once a step."""
        period_s = body.get("period_s", 0.0)
        if period_s <= 0:
            ticks["event"] = None
            task = ticks.pop("task", None)
            if task:
                task.cancel()
            return {"ok": True}
        ev = asyncio.Event()
        ticks["event"] = ev

        async def run():
            while True:
                await asyncio.sleep(period_s)
                ev.set()
                ev.clear()

        ticks["task"] = asyncio.get_running_loop().create_task(run())
        return {"ok": True}

    return app


def serve(port: int) -> None:
    pin(SERVER_CPU)
    import uvicorn

    # access_log off: vLLM logs each request by default (--disable-uvicorn-access-log
    # turns it off), so its figure is a little above this one. A long keep-alive so
    # the client's pooled connections are never closed between the phases here.
    uvicorn.run(build_app(), host="127.0.0.1", port=port, loop="uvloop", http="httptools",
                log_level="warning", access_log=False, timeout_keep_alive=600)


# ---------------------------------------------------------------------------
# 1. HTTP round trip; 6. streaming CPU per chunk (client side here)
# ---------------------------------------------------------------------------
PROMPT_TEXT = ("The quick brown fox jumps over the lazy dog. " * 23).strip()  # ~1 KB, ~230 tokens


def chat_payload(stream: bool, max_tokens: int = 16) -> Dict[str, Any]:
    # What vllm bench serve's async_request_openai_chat_completions posts.
    return {
        "model": "meta-llama/Meta-Llama-3-8B-Instruct",
        "messages": [{"role": "user", "content": [{"type": "text", "text": PROMPT_TEXT}]}],
        "max_completion_tokens": max_tokens,
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "stream": stream,
        "stream_options": {"include_usage": True},
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def http_client(port: int, reps: int, stream_secs: float) -> Dict[str, Any]:
    import aiohttp

    base = f"http://127.0.0.1:{port}"
    timeout = aiohttp.ClientTimeout(total=600)
    out: Dict[str, Any] = {}
    async with aiohttp.ClientSession(timeout=timeout) as session:
        for _ in range(200):  # wait for the server
            try:
                async with session.get(base + "/cpu") as r:
                    await r.read()
                break
            except aiohttp.ClientError:
                await asyncio.sleep(0.05)

        async def first_data_s(payload) -> float:
            st = time.perf_counter()
            async with session.post(base + "/v1/chat/completions", json=payload) as resp:
                first = None
                async for chunk in resp.content.iter_any():
                    if first is None and b"data:" in chunk:
                        first = time.perf_counter() - st
                return first

        async def json_s(payload) -> float:
            st = time.perf_counter()
            async with session.post(base + "/v1/chat/completions", json=payload) as resp:
                await resp.json()
            return time.perf_counter() - st

        async def server_cpu() -> float:
            async with session.get(base + "/cpu") as r:
                return (await r.json())["cpu_s"]

        sp, jp = chat_payload(True), chat_payload(False)
        for _ in range(reps // 10):
            await first_data_s(sp)
            await json_s(jp)
        # CPU per request on each side, one request in flight: what the server
        # process spends (parse, validate, route, respond) and what the client does.
        s0, c0 = await server_cpu(), cpu_s()
        sse = [await first_data_s(sp) for _ in range(reps)]
        s1, c1 = await server_cpu(), cpu_s()
        small = [await json_s(jp) for _ in range(reps)]
        s2, c2 = await server_cpu(), cpu_s()
        out["http_first_sse_chunk_us"] = median_us(sse)
        out["http_first_sse_chunk_p90_us"] = us(sorted(sse)[int(0.9 * len(sse))])
        out["http_sse_server_cpu_per_request_us"] = us((s1 - s0) / reps)
        out["http_sse_client_cpu_per_request_us"] = us((c1 - c0) / reps)
        out["http_small_json_us"] = median_us(small)
        out["http_json_server_cpu_per_request_us"] = us((s2 - s1) / reps)
        out["http_json_client_cpu_per_request_us"] = us((c2 - c1) / reps)
        out["http_reps"] = reps

        # 6. streaming: N concurrent streams of chat chunks.

        async def one_stream(n_chunks: int) -> int:
            payload = chat_payload(True, n_chunks)
            got = 0
            buf = ""
            async with session.post(base + "/stream", json=payload) as resp:
                async for raw in resp.content.iter_any():
                    # vllm bench serve's StreamedResponseHandler + json.loads per data line
                    buf += raw.decode("utf-8")
                    while "\n\n" in buf:
                        msg, buf = buf.split("\n\n", 1)
                        line = msg.strip().removeprefix("data:").strip()
                        if line and line != "[DONE]":
                            data = json.loads(line)
                            if data.get("choices"):
                                got += 1
            return got

        async def run_streams(n_streams: int, period_s: float, secs: float) -> Dict[str, float]:
            await session.post(base + "/ticker", json={"period_s": period_s})
            if period_s > 0:
                n_chunks = max(1, int(secs / period_s))
            else:
                n_chunks = max(1, int(secs * 20000 / n_streams))
            s0, c0, w0 = await server_cpu(), cpu_s(), time.perf_counter()
            counts = await asyncio.gather(*(one_stream(n_chunks) for _ in range(n_streams)))
            s1, c1, w1 = await server_cpu(), cpu_s(), time.perf_counter()
            await session.post(base + "/ticker", json={"period_s": 0})
            chunks = sum(counts)
            return {
                "chunks": chunks,
                "server_cpu_us_per_chunk": us((s1 - s0) / chunks),
                "client_cpu_us_per_chunk": us((c1 - c0) / chunks),
                "wall_us_per_chunk": us((w1 - w0) / chunks),
            }

        async def ticker_idle_cpu(period_s: float, secs: float) -> float:
            await session.post(base + "/ticker", json={"period_s": period_s})
            s0 = await server_cpu()
            await asyncio.sleep(secs)
            s1 = await server_cpu()
            await session.post(base + "/ticker", json={"period_s": 0})
            return (s1 - s0) / secs

        streams: Dict[str, Any] = {}
        for n in (1, 16, 64):
            streams[f"saturated_n{n}"] = await run_streams(n, 0.0, stream_secs)
        period_s = 0.005
        idle = ticker_idle_cpu(period_s, stream_secs / 2)
        idle_cpu_per_s = await idle
        for n in (1, 16, 64):
            r = await run_streams(n, period_s, stream_secs)
            # The ticker task stands in for the engine; its own CPU is not a chunk's.
            wall_s = r["wall_us_per_chunk"] * r["chunks"] / 1e6
            r["server_cpu_us_per_chunk_less_ticker"] = us(
                max(0.0, r["server_cpu_us_per_chunk"] / 1e6 * r["chunks"] - idle_cpu_per_s * wall_s) / r["chunks"])
            streams[f"paced5ms_n{n}"] = r
        streams["ticker_idle_cpu_share"] = round(idle_cpu_per_s, 5)
        out["stream"] = streams
    return out


def measure_http(reps: int, stream_secs: float) -> Dict[str, Any]:
    import uvloop

    port = free_port()
    server = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", str(port)])
    try:
        uvloop.install()
        return asyncio.run(http_client(port, reps, stream_secs))
    finally:
        server.terminate()
        server.wait(timeout=10)
        asyncio.set_event_loop_policy(None)


def measure_validation(reps: int) -> Dict[str, float]:
    """In-process parse + validation of the request body (no HTTP)."""
    body = json.dumps(chat_payload(True)).encode()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        ChatCompletionRequest(**json.loads(body))
        samples.append(time.perf_counter() - t0)
    chunk = []
    for _ in range(reps):
        t0 = time.perf_counter()
        stream_chunk("chatcmpl-x", "meta-llama/Meta-Llama-3-8B-Instruct", " tok")
        chunk.append(time.perf_counter() - t0)
    return {"request_parse_validate_us": median_us(samples), "sse_chunk_build_serialise_us": median_us(chunk)}


# ---------------------------------------------------------------------------
# 2. Chat template
# ---------------------------------------------------------------------------
# chat_template of meta-llama/Meta-Llama-3-8B-Instruct's tokenizer_config.json
# (copy vendored at github.com/YJiangcm/WebR, Meta-Llama-3-8B-Instruct/tokenizer_config.json).
LLAMA3_CHAT_TEMPLATE = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'"
    "+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
    "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
)


def measure_template(reps: int) -> Dict[str, float]:
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    # transformers' _compile_jinja_template (lru_cache'd: compiled once per template string).
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = lambda x, **kw: json.dumps(x, ensure_ascii=False, **kw)
    t0 = time.perf_counter()
    template = env.from_string(LLAMA3_CHAT_TEMPLATE)
    compile_s = time.perf_counter() - t0

    one = [{"role": "user", "content": PROMPT_TEXT}]
    four = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": PROMPT_TEXT},
        {"role": "assistant", "content": PROMPT_TEXT[:400]},
        {"role": "user", "content": PROMPT_TEXT[:300]},
    ]
    res = {"template_compile_once_us": us(compile_s)}
    for name, msgs in (("template_render_1msg_us", one), ("template_render_4msg_us", four)):
        samples = []
        for _ in range(reps):
            t0 = time.perf_counter()
            template.render(messages=msgs, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>",
                            add_generation_prompt=True)
            samples.append(time.perf_counter() - t0)
        res[name] = median_us(samples)
    return res


# ---------------------------------------------------------------------------
# 3. ZeroMQ ipc hop
# ---------------------------------------------------------------------------
def engine_request(n_tokens: int, rng: random.Random) -> Dict[str, Any]:
    """An EngineCoreRequest-like payload (vllm/v1/engine/__init__.py): the prompt's
    token ids plus sampling params, request id, arrival time."""
    return {
        "request_id": os.urandom(16).hex(),
        "prompt_token_ids": [rng.randrange(128256) for _ in range(n_tokens)],
        "mm_features": None,
        "sampling_params": {"temperature": 0.0, "top_p": 1.0, "top_k": 0, "max_tokens": 128, "seed": None,
                            "stop": [], "stop_token_ids": [128009], "ignore_eos": False, "n": 1},
        "pooling_params": None,
        "eos_token_id": 128009,
        "arrival_time": time.time(),
        "lora_request": None,
        "cache_salt": None,
        "data_parallel_rank": None,
        "client_index": 0,
        "current_wave": 0,
        "priority": 0,
        "trace_headers": None,
    }


def engine_outputs(n_requests: int) -> Dict[str, Any]:
    """An EngineCoreOutputs-like payload: one new token per running request."""
    return {
        "engine_index": 0,
        "outputs": [{"request_id": os.urandom(16).hex(), "new_token_ids": [1234], "new_logprobs": None,
                     "new_prompt_logprobs_tensors": None, "pooling_output": None, "finish_reason": None,
                     "stop_reason": None, "events": None, "kv_transfer_params": None, "num_cached_tokens": 0}
                    for _ in range(n_requests)],
        "scheduler_stats": None,
        "timestamp": time.monotonic(),
    }


def ipc_engine_side(in_addr: str, out_addr: str, ack_addr: str, n_msgs: int) -> None:
    """The EngineCore side: DEALER reads requests (input thread), PUSH writes outputs."""
    import msgpack
    import zmq

    pin(SERVER_CPU)
    ctx = zmq.Context()
    dealer = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.IDENTITY, b"\x00\x00")
    dealer.connect(in_addr)
    push = ctx.socket(zmq.PUSH)
    push.connect(out_addr)
    ack = ctx.socket(zmq.PUSH)
    ack.connect(ack_addr)
    dealer.send(b"READY")
    for _ in range(n_msgs):
        frames = dealer.recv_multipart(copy=False)
        msg = msgpack.unpackb(frames[1].buffer, use_list=True)
        t_recv = time.perf_counter()
        ack.send(msgpack.packb([msg["arrival_time"], t_recv]))
    # output direction: PUSH one EngineCoreOutputs-like message, client PULLs
    for i in range(n_msgs // 3):
        for n_req in (1, 64):
            t_send = time.perf_counter()
            push.send_multipart([msgpack.packb([t_send, engine_outputs(n_req)])])
            dealer.recv()  # client's go-ahead, so messages never queue
    ctx.destroy(linger=0)


def measure_ipc(n_msgs: int) -> Dict[str, Any]:
    import msgpack
    import zmq
    import multiprocessing as mp

    rng = random.Random(1)
    tmp = f"/tmp/servesim-ipc-{os.getpid()}"
    in_addr, out_addr, ack_addr = f"ipc://{tmp}-in", f"ipc://{tmp}-out", f"ipc://{tmp}-ack"
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)  # vLLM's core_client binds a ROUTER for requests
    router.bind(in_addr)
    pull = ctx.socket(zmq.PULL)  # and a PULL for outputs
    pull.bind(out_addr)
    ack = ctx.socket(zmq.PULL)
    ack.bind(ack_addr)
    sizes = (100, 1000, 8000)
    per_size = n_msgs // len(sizes)
    proc = mp.get_context("fork").Process(target=ipc_engine_side,
                                          args=(in_addr, out_addr, ack_addr, per_size * len(sizes)))
    proc.start()
    ident, ready = router.recv_multipart()
    assert ready == b"READY"

    res: Dict[str, Any] = {}
    payloads = {n: engine_request(n, rng) for n in sizes}
    for n in sizes:
        one_way, enc, dec = [], [], []
        for _ in range(per_size):
            req = payloads[n]
            t0 = time.perf_counter()
            req["arrival_time"] = t0
            body = msgpack.packb(req)
            t1 = time.perf_counter()
            router.send_multipart([ident, b"\x00", body], copy=False)
            t_send, t_recv = msgpack.unpackb(ack.recv())
            one_way.append(t_recv - t_send)
            enc.append(t1 - t0)
            t2 = time.perf_counter()
            msgpack.unpackb(body)
            dec.append(time.perf_counter() - t2)
        res[f"request_{n}tok"] = {"bytes": len(body), "one_way_encode_send_recv_decode_us": median_us(one_way),
                                  "encode_us": median_us(enc), "decode_us": median_us(dec)}
    out_lat = {1: [], 64: []}
    for _ in range(per_size * len(sizes) // 3):
        for n_req in (1, 64):
            frames = pull.recv_multipart()
            t_send, _outs = msgpack.unpackb(frames[0])
            out_lat[n_req].append(time.perf_counter() - t_send)
            router.send_multipart([ident, b"go"])
    for n_req, s in out_lat.items():
        res[f"outputs_{n_req}req_one_way_encode_send_recv_decode_us"] = median_us(s)
    proc.join(timeout=30)
    ctx.destroy(linger=0)
    # Least squares fit of one-way = fixed + per_token x tokens over the three sizes.
    xs = list(sizes)
    ys = [res[f"request_{n}tok"]["one_way_encode_send_recv_decode_us"] for n in sizes]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    res["fit_fixed_us"] = round(my - slope * mx, 3)
    res["fit_per_prompt_token_us"] = round(slope, 5)
    return res


# ---------------------------------------------------------------------------
# 4. Thread and asyncio hand-offs
# ---------------------------------------------------------------------------
def measure_thread_queue(reps: int) -> Dict[str, float]:
    """EngineCore's input thread put()s a request on a queue.Queue; the busy loop,
    idle, is blocked in get(). One-way: put -> get returns in the other thread."""
    q_in: "queue.Queue[float]" = queue.Queue()
    q_ack: "queue.Queue[float]" = queue.Queue()

    def consumer():
        for _ in range(reps):
            t_sent = q_in.get()
            q_ack.put(time.perf_counter() - t_sent)

    th = threading.Thread(target=consumer)
    th.start()
    samples = []
    for _ in range(reps):
        q_in.put(time.perf_counter())
        samples.append(q_ack.get())
    th.join()
    return {"thread_queue_wakeup_us": median_us(samples)}


async def asyncio_handoffs(reps: int) -> Dict[str, float]:
    q: asyncio.Queue = asyncio.Queue()
    lat_q = []

    async def q_consumer():
        for _ in range(reps):
            t = await q.get()
            lat_q.append(time.perf_counter() - t)

    task = asyncio.get_running_loop().create_task(q_consumer())
    for _ in range(reps):
        await asyncio.sleep(0)
        q.put_nowait(time.perf_counter())
        await asyncio.sleep(0)
    await task

    ev = asyncio.Event()
    lat_e = []
    sent = [0.0]

    async def ev_consumer():
        for _ in range(reps):
            await ev.wait()
            lat_e.append(time.perf_counter() - sent[0])
            ev.clear()

    task = asyncio.get_running_loop().create_task(ev_consumer())
    for _ in range(reps):
        await asyncio.sleep(0)
        sent[0] = time.perf_counter()
        ev.set()
        await asyncio.sleep(0)
    await task
    return {"asyncio_queue_wakeup_us": median_us(lat_q), "asyncio_event_wakeup_us": median_us(lat_e)}


def measure_handoffs(reps: int) -> Dict[str, float]:
    import uvloop

    res = measure_thread_queue(reps)
    uvloop.install()
    res.update(asyncio.run(asyncio_handoffs(reps)))
    asyncio.set_event_loop_policy(None)
    return res


# ---------------------------------------------------------------------------
# 5. Prefix-caching block hashes
# ---------------------------------------------------------------------------
def measure_block_hash(n_blocks: int) -> Dict[str, float]:
    """vllm/v1/core/kv_cache_utils.py hash_block_tokens with the default
    prefix_caching_hash_algo "sha256": sha256(pickle.dumps((parent_hash,
    tuple(16 token ids), extra_keys), protocol=HIGHEST_PROTOCOL)).digest(), chained."""
    rng = random.Random(2)
    block_size = 16
    tokens = [rng.randrange(128256) for _ in range(n_blocks * block_size)]

    def sha256_pickle(obj) -> bytes:
        return hashlib.sha256(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)).digest()

    parent = hashlib.sha256(b"NONE_HASH").digest()
    t0 = time.perf_counter()
    for i in range(n_blocks):
        block = tuple(tokens[i * block_size:(i + 1) * block_size])
        parent = sha256_pickle((parent, block, None))
    per_block_s = (time.perf_counter() - t0) / n_blocks
    res = {"sha256_pickle_per_block_us": us(per_block_s),
           "sha256_pickle_per_prompt_token_us": round(per_block_s / block_size * 1e6, 4)}
    try:
        import cbor2  # vLLM's "sha256_cbor" option

        parent = hashlib.sha256(b"NONE_HASH").digest()
        t0 = time.perf_counter()
        for i in range(n_blocks):
            block = tuple(tokens[i * block_size:(i + 1) * block_size])
            parent = hashlib.sha256(cbor2.dumps((parent, block, None), canonical=True)).digest()
        res["sha256_cbor_per_block_us"] = us((time.perf_counter() - t0) / n_blocks)
    except ImportError:
        res["sha256_cbor_per_block_us"] = None
    return res


# ---------------------------------------------------------------------------
def versions() -> Dict[str, str]:
    import aiohttp, fastapi, httptools, jinja2, msgpack, pydantic, starlette, uvicorn, uvloop, zmq

    return {
        "python": platform.python_version(),
        "fastapi": fastapi.__version__,
        "starlette": starlette.__version__,
        "pydantic": pydantic.VERSION,
        "uvicorn": uvicorn.__version__,
        "uvloop": uvloop.__version__,
        "httptools": httptools.__version__,
        "aiohttp": aiohttp.__version__,
        "pyzmq": zmq.__version__,
        "libzmq": zmq.zmq_version(),
        "msgpack": ".".join(map(str, msgpack.version)),
        "jinja2": jinja2.__version__,
    }


def busy_cpu_s() -> float:
    """CPU seconds all processes on the machine have run (/proc/stat: all but
    idle and iowait), to tell how much of a run's machine time was someone else's."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return float("nan")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def own_cpu_s() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    quick = "--quick" in sys.argv
    scale = 0.2 if quick else 1.0
    pin(CLIENT_CPU)
    t_start = time.perf_counter()
    # The figures are only as good as the machine is quiet: the load average
    # before and after tells a reader whether something else ran alongside.
    result: Dict[str, Any] = {"versions": versions(), "loadavg_1min_before": os.getloadavg()[0]}
    busy0, own0 = busy_cpu_s(), own_cpu_s()
    result["validation"] = measure_validation(int(3000 * scale))
    result["template"] = measure_template(int(5000 * scale))
    result["handoff"] = measure_handoffs(int(5000 * scale))
    result["hash"] = measure_block_hash(int(20000 * scale))
    result["ipc"] = measure_ipc(int(3000 * scale))
    result["http"] = measure_http(int(2000 * scale), 3.0 * scale)
    result["elapsed_s"] = round(time.perf_counter() - t_start, 1)
    result["loadavg_1min_after"] = os.getloadavg()[0]
    # Share of the machine's CPUs that other processes used during the run: near 0
    # on a quiet machine; a run with more than a few percent was disturbed.
    wall_s = time.perf_counter() - t_start
    others_s = (busy_cpu_s() - busy0) - (own_cpu_s() - own0)
    result["other_processes_cpu_share"] = round(max(0.0, others_s) / (wall_s * (os.cpu_count() or 1)), 4)
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]))
    else:
        main()
