package io.relock.jedis;

import io.relock.contract.RedlockContract;

class JedisRedlockTest extends RedlockContract {}
