import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context";
import { validationHook } from "./error-handler";

/** A Hono sub-app for one area of the spec; mounted at /api/v1 with routes declared by full path. */
export function createArea() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook as never });
}
