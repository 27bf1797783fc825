package io.relock.lettuce;

import io.relock.contract.RedlockContract;

class LettuceRedlockTest extends RedlockContract {}
