package io.relock.lettuce;

import io.relock.contract.RedactionContract;

class LettuceRedactionTest extends RedactionContract {}
