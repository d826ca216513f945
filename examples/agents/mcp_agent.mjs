#!/usr/bin/env node
// An MCP agent for `aau evaluate` environment cases in plain JavaScript: Node >= 18, no npm
// dependency (the global fetch). It reads one protocol 1.1 request line on stdin, talks MCP
// streamable HTTP to request.mcp.url with `Authorization: Bearer <mcp.bearer_token>`:
//
//   1. POST initialize (protocolVersion 2025-11-25); keep the Mcp-Session-Id the server answers
//      and send the protocol version it negotiated as the MCP-Protocol-Version header from then on;
//   2. POST notifications/initialized (202, no body);
//   3. POST tools/list (every page, nextCursor);
//   4. POST tools/call for each call of its script, never more than mcp.max_calls;
//   5. DELETE the session.
//
// Each POST accepts `application/json, text/event-stream`: a JSON body is the answer, an SSE
// stream is read event by event until the JSON-RPC response with the request's id arrives (other
// messages the server sends first are skipped).
//
// The strategy is scripted, no model: the calls in AAU_MCP_CALLS (a JSON list of
// {"name", "arguments"}, or tool names separated by commas, called with {}), else the first listed
// tool with {}. The answer, one JSON line on stdout, is {"outcome": <the last result's text>}.
//
//   aau evaluate suite.json --command "node examples/agents/mcp_agent.mjs"
//
// Exit codes: 0 answered; 2 a request it does not read; 3 the MCP server failed (a wrong token is
// HTTP 401, an ended unit 404, a JSON-RPC error on initialize or tools/list). A tool error
// (isError, or a JSON-RPC error answering one call) is noted on stderr and the script goes on.
// Messages go to stderr, one line each.

const PROTOCOL = "aau-byo-agent-request/1.1";
const MCP_VERSION = "2025-11-25";
const NAME = "mcp_agent.mjs";

class RequestError extends Error {}
class ServiceError extends Error {}

function readRequest(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    throw new RequestError(`the request is not JSON: ${error.message}`);
  }
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    throw new RequestError("the request must be a JSON object");
  }
  if (request.protocol_version !== PROTOCOL) {
    throw new RequestError(`protocol_version ${JSON.stringify(request.protocol_version)}: this agent reads ${PROTOCOL}`);
  }
  const mcp = request.mcp;
  if (!mcp || typeof mcp.url !== "string" || !/^https?:\/\//.test(mcp.url)) {
    throw new RequestError("$.mcp.url must be an http(s) URL");
  }
  if (typeof mcp.bearer_token !== "string" || mcp.bearer_token === "") {
    throw new RequestError("$.mcp.bearer_token must be a non-empty string");
  }
  const maxCalls = mcp.max_calls ?? 50;
  if (!Number.isInteger(maxCalls) || maxCalls < 1) {
    throw new RequestError("$.mcp.max_calls must be an integer >= 1");
  }
  return { url: mcp.url, token: mcp.bearer_token, maxCalls };
}

function script(tools) {
  const text = (process.env.AAU_MCP_CALLS ?? "").trim();
  if (text === "") {
    if (tools.length === 0) return [];
    return [{ name: tools[0].name, arguments: {} }];
  }
  if (text.startsWith("[")) {
    const calls = JSON.parse(text);
    return calls.map((c) => ({ name: String(c.name), arguments: c.arguments ?? {} }));
  }
  return text.split(",").map((n) => n.trim()).filter(Boolean).map((name) => ({ name, arguments: {} }));
}

// The JSON-RPC message with `id` among the SSE events of `response`, read as they arrive.
async function fromEventStream(response, id) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffer += decoder.decode(value, { stream: true });
      buffer = buffer.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.split("\n").filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).replace(/^ /, "")).join("\n");
        if (data === "") continue; // a comment, a retry hint or an event without data
        const message = JSON.parse(data);
        if (message.id === id && ("result" in message || "error" in message)) return message;
      }
      if (done) throw new ServiceError(`the event stream ended without the answer to request ${id}`);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

class McpClient {
  constructor(url, token) {
    this.url = url;
    this.token = token;
    this.sessionId = null;
    this.protocolVersion = null;
    this.nextId = 1;
  }

  headers() {
    const headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${this.token}`,
    };
    if (this.sessionId) headers["Mcp-Session-Id"] = this.sessionId;
    if (this.protocolVersion) headers["MCP-Protocol-Version"] = this.protocolVersion;
    return headers;
  }

  async post(method, params, { notification = false } = {}) {
    const id = notification ? undefined : this.nextId++;
    const body = { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) };
    if (!notification) body.id = id;
    let response;
    try {
      response = await fetch(this.url, { method: "POST", headers: this.headers(), body: JSON.stringify(body) });
    } catch (error) {
      throw new ServiceError(`${method}: cannot reach ${this.url}: ${error.cause?.message ?? error.message}`);
    }
    const session = response.headers.get("mcp-session-id");
    if (session) this.sessionId = session;
    if (!response.ok) {
      const text = (await response.text()).slice(0, 200).replace(/\s+/g, " ");
      throw new ServiceError(`${method}: HTTP ${response.status} from ${this.url}: ${text}`);
    }
    if (notification) {
      await response.body?.cancel();
      return null;
    }
    const type = response.headers.get("content-type") ?? "";
    const message = type.includes("text/event-stream")
      ? await fromEventStream(response, id)
      : await response.json();
    if (message.id !== id) throw new ServiceError(`${method}: the answer has id ${message.id}, not ${id}`);
    return message; // {result} or {error}
  }

  async initialize() {
    const answer = await this.post("initialize", {
      protocolVersion: MCP_VERSION,
      capabilities: {},
      clientInfo: { name: "aau-example-mcp-agent-js", version: "1.0.0" },
    });
    if (answer.error) throw new ServiceError(`initialize: ${answer.error.message}`);
    this.protocolVersion = answer.result.protocolVersion;
    await this.post("notifications/initialized", undefined, { notification: true });
  }

  async listTools() {
    const tools = [];
    let cursor;
    do {
      const answer = await this.post("tools/list", cursor ? { cursor } : {});
      if (answer.error) throw new ServiceError(`tools/list: ${answer.error.message}`);
      tools.push(...answer.result.tools);
      cursor = answer.result.nextCursor;
    } while (cursor);
    return tools;
  }

  // {ok, text}: a tool error or a JSON-RPC error of this call is {ok: false}.
  async callTool(name, args) {
    const answer = await this.post("tools/call", { name, arguments: args });
    if (answer.error) return { ok: false, text: `Error: ${answer.error.message}` };
    const result = answer.result;
    const text = (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n")
      || (result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent));
    return { ok: !result.isError, text };
  }

  async close() {
    if (!this.sessionId) return;
    try {
      const response = await fetch(this.url, { method: "DELETE", headers: this.headers() });
      await response.body?.cancel();
    } catch {
      // the unit may be gone already; nothing to do
    }
  }
}

async function readStdinLine() {
  let text = "";
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes("\n")) break;
  }
  return text.split("\n", 1)[0];
}

async function main() {
  let target;
  try {
    target = readRequest(await readStdinLine());
  } catch (error) {
    console.error(`${NAME}: bad request: ${error.message}`);
    return 2;
  }
  const client = new McpClient(target.url, target.token);
  try {
    await client.initialize();
    const tools = await client.listTools();
    let calls;
    try {
      calls = script(tools);
    } catch (error) {
      console.error(`${NAME}: AAU_MCP_CALLS: ${error.message}`);
      return 2;
    }
    let last = "";
    let made = 0;
    for (const call of calls) {
      if (made >= target.maxCalls) {
        console.error(`${NAME}: call budget of ${target.maxCalls} used up`);
        break;
      }
      made += 1;
      const { ok, text } = await client.callTool(call.name, call.arguments);
      if (!ok) console.error(`${NAME}: ${call.name}: ${text.slice(0, 200)}`);
      last = text;
    }
    console.error(`${NAME}: ${tools.length} tools listed, ${made} called (MCP ${client.protocolVersion})`);
    process.stdout.write(JSON.stringify({ outcome: last }) + "\n");
    return 0;
  } catch (error) {
    console.error(`${NAME}: MCP server failed: ${error.message}`);
    return 3;
  } finally {
    await client.close();
  }
}

process.exitCode = await main();
