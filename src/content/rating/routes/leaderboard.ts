import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { coreErrors } from "../../../core/http/errors";
import { gates } from "../../../core/http/gates";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { coursesErrors } from "../../courses/errors";
import { groupsErrors } from "../../groups/errors";
import { ratingErrors as e } from "../errors";
import { getFilterOptions } from "../filter-options";
import { getLeaderboard } from "../leaderboard-service";
import { FilterOptions, FilterOptionsQuery, Leaderboard, LeaderboardQuery } from "../read-schemas";

/** The leaderboard and the objects it can be filtered by, for every member of the school. */
export const leaderboardRoutesPart = createArea();

const tags = ["Rating"];

const leaderboardRoute = defineRoute({
  method: "get",
  path: "/t/rating",
  gate: gates.member,
  tags,
  summary:
    "The leaderboard of the active students the caller sees, by stored totals or, with module_id, source_id, source_types, from or to, by the sum of the matching point events; students see short names of the others and their own rank (caller_*)",
  request: { query: LeaderboardQuery },
  failures: [e.INVALID_GROUP_ID, e.INVALID_MODULE_ID, e.INVALID_SOURCE_ID, coreErrors.INVALID_PARAMS, groupsErrors.GROUP_NOT_FOUND, coursesErrors.MODULE_NOT_FOUND],
  responses: { 200: okResponse(Leaderboard) },
});

leaderboardRoutesPart.openapi(leaderboardRoute, async (c) => ok(c, await getLeaderboard(tenantCtx(c), c.req.valid("query"))));

const filterOptionsRoute = defineRoute({
  method: "get",
  path: "/t/rating/filter-options",
  gate: gates.member,
  tags,
  summary: "Lessons, quizzes, assignments and exams that already have point events of students the caller sees; module_id limits the first three to the module",
  request: { query: FilterOptionsQuery },
  failures: [e.INVALID_GROUP_ID, e.INVALID_MODULE_ID, groupsErrors.GROUP_NOT_FOUND, coursesErrors.MODULE_NOT_FOUND],
  responses: { 200: okResponse(FilterOptions) },
});

leaderboardRoutesPart.openapi(filterOptionsRoute, async (c) => ok(c, await getFilterOptions(tenantCtx(c), c.req.valid("query"))));
