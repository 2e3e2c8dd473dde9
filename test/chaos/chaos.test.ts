/**
 * The chaos suite: every scenario against the simulator's fault injection, asserting the final truth
 * (gateway = venue for every order; nothing duplicated, nothing lost). Scenarios run one after the
 * other in this file so the results table below is complete when it prints.
 */
import { afterAll } from "vitest";
import { report } from "./harness/results.js";
import { badStrategyScenario } from "./scenarios/badStrategy.js";
import { clockSkewScenarios } from "./scenarios/clockSkew.js";
import { crashScenario } from "./scenarios/crash.js";
import { engineLostScenarios } from "./scenarios/engineLost.js";
import { engineRateScenarios } from "./scenarios/engineRate.js";
import { engineSkewScenarios } from "./scenarios/engineSkew.js";
import { engineStreamScenarios } from "./scenarios/engineStreams.js";
import { garbageAnswersScenario } from "./scenarios/garbageAnswers.js";
import { killSwitchScenario } from "./scenarios/killSwitch.js";
import { lostResponses } from "./scenarios/lostResponses.js";
import { manySessionsScenario } from "./scenarios/manySessions.js";
import { rateLimitScenarios } from "./scenarios/rateLimits.js";
import { strategyDropScenario } from "./scenarios/strategyDrop.js";
import { streamScenarios } from "./scenarios/streams.js";
import { venuePartitionScenario } from "./scenarios/venuePartition.js";

lostResponses();
streamScenarios();
rateLimitScenarios();
clockSkewScenarios();
engineLostScenarios();
engineStreamScenarios();
engineRateScenarios();
engineSkewScenarios();
venuePartitionScenario();
garbageAnswersScenario();
killSwitchScenario();
manySessionsScenario();
strategyDropScenario();
crashScenario();
badStrategyScenario();

afterAll(() => report());
