package io.relock.jedis;

import io.relock.stress.RedlockStressContract;

class JedisRedlockStressTest extends RedlockStressContract {}
