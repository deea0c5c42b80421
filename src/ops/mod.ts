/**
 * The operations layer (issue 12): every operation an operator, a script or
 * a plugin can perform or query is one typed method with a zod schema of
 * its arguments, a JSON result, one error type ({@link OpsError}) with
 * stable codes, and a permission checked against the calling
 * {@link Actor}. The console, OpenUDS, the HTTP admin panel and the
 * extension hosts are adapters: parse -> {@link Ops.call} -> render.
 *
 * @example Calling an operation (a plugin host's `api-call`)
 * ```ts ignore
 * const result = await ops.call("room.set_lock", ["lobby", true], { kind: "plugin", id: "my-plugin" });
 * ```
 *
 * @example Adding one from outside (a plugin host's `http.register_route`)
 * ```ts ignore
 * const remove = ops.register(serverOp({
 *   name: "http.register_route",
 *   summary: "serve a plugin route",
 *   permission: "plugin.register",
 *   mutates: true,
 *   params: { path: z.string(), plugin: z.string() },
 *   run: (a, call) => ({ path: routes.register(a.path, handlerOf(a.plugin), a.plugin) }),
 * }), "wasm-host");
 * ```
 *
 * @module
 */

export * from "./actor.ts";
export * from "./errors.ts";
export * from "./op.ts";
export * from "./params.ts";
export * from "./args.ts";
export * from "./audit.ts";
export * from "./registry.ts";
export * from "./deps.ts";
export * from "./views.ts";
export * from "./services.ts";
export * from "./config_reload.ts";
export * from "./runtime_report.ts";
export * from "./input_log.ts";
export * from "./room_visits.ts";
export { type ServerOp, serverOp } from "./server_op.ts";
export { banTargets } from "./ops_people.ts";
export { NO_PERSISTENCE } from "./ops_persist.ts";
export { OPENUDS_API_VERSION, WELCOME_PLACEHOLDERS } from "./ops_server.ts";
export { NO_PLUGINS } from "./ops_tools.ts";
export * from "./create.ts";
