package io.relock.lettuce;

import io.relock.stress.RedlockStressContract;

class LettuceRedlockStressTest extends RedlockStressContract {}
