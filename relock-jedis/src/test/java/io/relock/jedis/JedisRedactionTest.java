package io.relock.jedis;

import io.relock.contract.RedactionContract;

class JedisRedactionTest extends RedactionContract {}
