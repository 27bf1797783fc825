package io.relock.lettuce;

import io.relock.contract.ConnectionContract;

/** The URI connection contract on Lettuce, the only driver on this module's class path. */
class LettuceConnectionTest extends ConnectionContract {}
