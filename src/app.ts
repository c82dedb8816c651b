import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { authRoutes } from "./platform/auth/routes";
import { billingRoutes } from "./platform/billing/routes";
import { devicesRoutes } from "./platform/devices/routes";
import { tenantsRoutes } from "./platform/tenants/routes";
import { usersRoutes } from "./platform/users/routes";
import { devRoutes } from "./platform/dev/routes";
import { notificationsRoutes } from "./platform/notifications/routes";
import { mediaRoutes } from "./platform/media/routes";
import { auditRoutes } from "./platform/audit/routes";
import type { AppEnv } from "./core/http/context";
import { notFound, onError } from "./core/http/error-handler";
import { ERROR_SCHEMA, ErrorBody } from "./core/http/envelope";
import { getConfig } from "./core/env";
import { isAllowedOrigin } from "./core/http/origins";
import { requestContext } from "./core/http/request-context";
import { CONTRIBUTORS } from "./contributors";
import type { ContributorRegistry } from "./core/events";
import { securityHeaders } from "./core/http/security-headers";
import { accessControl, API_PREFIX, BOOKMARK_HEADER, type AccessControl } from "./core/http/route";
import { authenticate } from "./platform/auth/authenticate";
import { checkBilling } from "./platform/auth/billing-gate";
import { recordLastActive } from "./platform/auth/last-active";
import { systemRoutes } from "./platform/system/routes";
import { coursesRoutes } from "./content/courses/routes";
import { enrollmentRoutes } from "./content/enrollments/routes";
import { groupRoutes } from "./content/groups/routes";
import { pathRoutes } from "./content/paths/routes";
import { scheduleRoutes } from "./content/schedule/routes";
import { quizRoutes } from "./content/quizzes/routes";
import { attemptRoutes } from "./content/attempts/routes";
import { examRoutes } from "./content/exams/routes";
import { assignmentRoutes } from "./content/assignments/routes";
import { submissionRoutes } from "./content/submissions/routes";
import { screenshotRoutes } from "./content/screenshot/routes";
import { ratingRoutes } from "./content/rating/routes";
import { analyticsRoutes } from "./content/analytics/routes";
import { accommodationRoutes } from "./content/accommodations/routes";
import { importRoutes } from "./content/imports/routes";
import { webhookRoutes } from "./platform/webhooks/routes";
import { certificatePublicRoutes } from "./content/certificates/public-routes";
import { certificateRoutes } from "./content/certificates/routes";
import { dataExportRoutes } from "./platform/data-export/routes";
import { itemAnalysisRoutes } from "./content/item-analysis/routes";
import { regradeRoutes } from "./content/regrade/routes";

function buildApp(access: AccessControl, contributors: ContributorRegistry) {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requestContext(contributors));
  app.use("*", accessControl(access));
  app.use("*", securityHeaders());
  app.use(
    "*",
    cors({
      origin: (origin, c) => (isAllowedOrigin(origin, getConfig(c.env)) ? origin : null),
      credentials: true,
      allowHeaders: ["Authorization", "Content-Type", "X-Tenant-Subdomain", "X-Request-Id", BOOKMARK_HEADER],
      allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      exposeHeaders: ["X-Request-Id", BOOKMARK_HEADER],
      maxAge: 600,
    }),
  );

  app.route(API_PREFIX, systemRoutes);
  app.route(API_PREFIX, authRoutes);
  app.route(API_PREFIX, usersRoutes);
  app.route(API_PREFIX, tenantsRoutes);
  app.route(API_PREFIX, billingRoutes);
  app.route(API_PREFIX, devicesRoutes);
  app.route(API_PREFIX, notificationsRoutes);
  app.route(API_PREFIX, mediaRoutes);
  app.route(API_PREFIX, auditRoutes);
  app.route(API_PREFIX, webhookRoutes);
  app.route(API_PREFIX, dataExportRoutes);
  app.route(API_PREFIX, coursesRoutes);
  app.route(API_PREFIX, enrollmentRoutes);
  app.route(API_PREFIX, groupRoutes);
  app.route(API_PREFIX, pathRoutes);
  app.route(API_PREFIX, scheduleRoutes);
  app.route(API_PREFIX, quizRoutes);
  app.route(API_PREFIX, attemptRoutes);
  app.route(API_PREFIX, examRoutes);
  app.route(API_PREFIX, assignmentRoutes);
  app.route(API_PREFIX, submissionRoutes);
  app.route(API_PREFIX, screenshotRoutes);
  app.route(API_PREFIX, ratingRoutes);
  app.route(API_PREFIX, analyticsRoutes);
  app.route(API_PREFIX, accommodationRoutes);
  app.route(API_PREFIX, importRoutes);
  app.route(API_PREFIX, certificateRoutes);
  app.route(API_PREFIX, certificatePublicRoutes);
  app.route(API_PREFIX, itemAnalysisRoutes);
  app.route(API_PREFIX, regradeRoutes);
  app.route(API_PREFIX, devRoutes);

  app.doc31(`${API_PREFIX}/openapi.json`, {
    openapi: "3.1.0",
    info: {
      title: "Learning platform API",
      version: "1.0.0",
      description: "Multi-tenant learning-management API. Failures are `{success:false, error, message, request_id}`.",
      // OpenAPI 3.1 allows an SPDX `identifier`; the config type still has the 3.0 license shape.
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" } as { name: string },
    },
    // Relative: the document describes whichever deployment serves it (local, staging, production).
    servers: [{ url: "/", description: "The deployment serving this document" }],
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  // Failure responses refer to the envelope by name (errorSchemaWithIdentifiers), so it is registered once here.
  app.openAPIRegistry.register(ERROR_SCHEMA, ErrorBody);

  app.notFound(notFound);
  app.onError(onError);
  return app;
}

const ACCESS: AccessControl = { authenticate, checkBilling, afterAdmission: recordLastActive };

export const app = buildApp(ACCESS, CONTRIBUTORS);

/**
 * The same app with another contributors' registry: a test registers a probe contributor next to
 * the app's and drives the sources over HTTP (docs/domain-events.md, "Tests").
 */
export function appWithContributors(contributors: ContributorRegistry) {
  return buildApp(ACCESS, contributors);
}
