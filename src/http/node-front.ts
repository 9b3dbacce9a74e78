// The node:http front end: a request's body, connection and answer as node:http's request and
// response hold them (serving.ts, FrontEnd). startServer's listener reaches the steps of listener.ts through it.
import type { IncomingMessage, ServerResponse } from "node:http";
import { awaitBody, bufferedBody } from "./body.ts";
import { lingerOnClose } from "./linger.ts";
import { send, sendLong } from "./respond.ts";
import type { Exchange, FrontEnd } from "./serving.ts";

type NodeExchange = Exchange<IncomingMessage, ServerResponse>;

export const nodeFront: FrontEnd<IncomingMessage, ServerResponse> = {
  connection: (exchange: NodeExchange) => exchange.request.socket,
  remoteAddress: (exchange: NodeExchange) => exchange.request.socket.remoteAddress,
  arrivedBody: (exchange: NodeExchange) => bufferedBody(exchange.request),
  readBody: (exchange, limit, budget, done) => awaitBody(exchange.request, limit, budget, done),
  leavesBodyUnread,
  send: (exchange, reply, options, text) => send(exchange.response, reply, options, text),
  sendLong: (exchange, reply, body, options, done) => sendLong(exchange.serving.pacer, exchange.response, reply, body, options, exchange.serving.stallTimeout, done),
  breakOff,
  drop,
};

/**
 * An answer sent before the whole body arrived closes the connection, so that no client can make the
 * server go on reading a body it has already refused; the connection lingers as it closes (linger.ts).
 */
function leavesBodyUnread(exchange: NodeExchange): boolean {
  const { request } = exchange;
  if (request.complete) return false;
  const length = request.headers["content-length"];
  // Whether the request announced a body: a non-zero length, or chunks.
  const unread = request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
  if (unread) lingerOnClose(request.socket);
  return unread;
}

function breakOff(exchange: NodeExchange): boolean {
  if (!exchange.response.headersSent) return false;
  exchange.response.destroy();
  return true;
}

function drop(exchange: NodeExchange): void {
  const socket = exchange.request.socket as typeof exchange.request.socket & { resetAndDestroy?: () => void };
  // A TCP reset where the runtime can send one (Node), a plain close elsewhere.
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}
