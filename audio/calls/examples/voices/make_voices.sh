#!/bin/sh
# Regenerates every caller WAV used by the repair scripts 36-40, the blind scripts 83-89 and
# script 90 in audio/calls/examples/.
# Run from the repository root:  sh audio/calls/examples/voices/make_voices.sh
# Needs espeak-ng (1.51) and sox (14.4.2). Output: 16 kHz mono 16-bit PCM WAV, silence trimmed.
#
# Two kinds of caller audio, never the bundled Piper voice:
#   clear   - espeak-ng at a normal rate: the caller speaking plainly.
#   misheard- the same words spoken very fast by espeak-ng, then drowned in pink noise at a
#             low signal-to-noise ratio (speech peak -3 dBFS, noise peak -10..-14 dBFS): the
#             caller is on a bad line. The recogniser returns low-confidence words that are
#             not the value (measured 2026-12-01 with the bundled tiny.en; see the report).
# sox -R makes the noise repeatable, so the same command gives the same file.
set -eu

OUT=audio/calls/examples/voices
[ -d "$OUT" ] || { echo "run from the repository root" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# clear VOICE RATE FILE TEXT
clear() {
  espeak-ng -v "$1" -s "$2" -w "$TMP/raw.wav" "$4"
  sox -R "$TMP/raw.wav" -r 16000 -c 1 -b 16 "$OUT/$3" \
    silence 1 0.05 1% reverse silence 1 0.05 1% reverse pad 0.1 0.15
}

# plain VOICE FILE TEXT: espeak-ng's default rate, converted with nothing else done
plain() {
  espeak-ng -v "$1" -w "$TMP/raw.wav" "$3"
  sox -R "$TMP/raw.wav" -r 16000 -c 1 -b 16 "$OUT/$2"
}

# rated VOICE RATE FILE TEXT: espeak-ng at RATE words a minute, converted with nothing else done
rated() {
  espeak-ng -v "$1" -s "$2" -w "$TMP/raw.wav" "$4"
  sox -R "$TMP/raw.wav" -r 16000 -c 1 -b 16 "$OUT/$3"
}

# ssml VOICE RATE FILE SSML: espeak-ng reading SSML (a <break> inside one sentence), converted
# with nothing else done
ssml() {
  espeak-ng -m -v "$1" -s "$2" -w "$TMP/raw.wav" "$4"
  sox -R "$TMP/raw.wav" -r 16000 -c 1 -b 16 "$OUT/$3"
}

# misheard VOICE RATE NOISE_PEAK_DB FILE TEXT
misheard() {
  espeak-ng -v "$1" -s "$2" -w "$TMP/raw.wav" "$5"
  sox -R "$TMP/raw.wav" -r 16000 -c 1 -b 16 "$TMP/speech.wav" \
    silence 1 0.05 1% reverse silence 1 0.05 1% reverse gain -n -3 pad 0.3 0.3
  d=$(soxi -D "$TMP/speech.wav")
  sox -R -n -r 16000 -c 1 -b 16 "$TMP/noise.wav" synth "$d" pinknoise gain -n "$3"
  sox -R -m "$TMP/speech.wav" "$TMP/noise.wav" -b 16 "$OUT/$4" gain -n -3
}

# 36: closed choice on the date (en-gb, British male)
clear    en-gb 140     36-t1-request.wav         "I'd like a service visit for our pump in the afternoon, please."
misheard en-gb 300 -14 36-t2-misheard.wav        "Thursday the third."
clear    en-gb 140     36-t3-pick.wav            "The third of December would be best, thank you."
clear    en-gb 140     36-t4-yes.wav             "Yes, please go ahead."

# 37: yes/no on the most likely window (en-us+f3, American female)
clear    en-us+f3 140     37-t1-request.wav      "I need a service visit for pump P one hundred on Friday."
misheard en-us+f3 380 -10 37-t2-misheard.wav     "In the morning, please."
misheard en-us+f3 300 -14 37-t3-misheard.wav     "The morning."
clear    en-us+f3 150     37-t4-yes.wav          "Yes, that is correct."
clear    en-us+f3 150     37-t5-go-ahead.wav     "Yes, please go ahead."

# 38: every answer fails, the caller takes the offer of a person (en-us+m3, American male)
clear    en-us+m3 140     38-t1-request.wav      "I'd like a service visit for our pump in the afternoon."
clear    en-us+m3 140     38-t1b-yes.wav         "Yes, that is correct."
misheard en-us+m3 380 -10 38-t2-misheard.wav     "Friday the fourth."
misheard en-us+m3 380 -14 38-t3-misheard.wav     "Neither, Friday."
misheard en-us+m3 380 -10 38-t4-misheard.wav     "No, Friday."
clear    en-us+m3 140     38-t5-put-me-through.wav "Yes, please put me through to someone."

# 39: the caller declines the offer of a person, the agent tries once more (en-gb-x-rp, RP male)
clear    en-gb-x-rp 140     39-t1-request.wav    "I need a service visit for our pump on Monday."
clear    en-gb-x-rp 140     39-t1b-yes.wav       "Yes, that is correct."
misheard en-gb-x-rp 300 -14 39-t2-misheard.wav   "The afternoon."
misheard en-gb-x-rp 380 -14 39-t3-misheard.wav   "Afternoon, please."
misheard en-gb-x-rp 380 -10 39-t4-misheard.wav   "No, the afternoon."
clear    en-gb-x-rp 140     39-t5-try-again.wav  "No thanks, let's try again."
clear    en-gb-x-rp 140     39-t6-afternoon.wav  "In the afternoon, please, after lunch."
clear    en-gb-x-rp 140     39-t7-go-ahead.wav   "Yes, please go ahead."

# 40: yes to the yes/no on the first offered day (en-us+m1, American male, another variant)
clear    en-us+m1 140     40-t1-request.wav    "I'd like a service visit for our pump in the morning."
clear    en-us+m1 140     40-t1b-yes.wav       "Yes, that is correct."
misheard en-us+m1 300 -14 40-t2-misheard.wav   "Tomorrow, please."
misheard en-us+m1 380 -10 40-t3-misheard.wav   "Wednesday, tomorrow."
clear    en-us+m1 140     40-t4-yes.wav        "Yes, that is correct."
clear    en-us+m1 140     40-t5-go-ahead.wav   "Yes, please go ahead."

# 83-86: written blind (2026-12-05, night), each in its writer's espeak-ng voice at its
# default rate, converted with nothing else done. The writer's files were converted without
# -R, so these come out the same but for sox's dither in the lowest bit

plain en-gb-x-rp+edward 83-s1-request.wav "Could you send an engineer to pump P 100 on Wednesday, no sorry, on Thursday, in the afternoon."
plain en-gb-x-rp+edward 83-s1-check.wav "Yes, that's right, Thursday afternoon for P 100."
plain en-gb-x-rp+edward 83-s1-check2.wav "Yes, Thursday in the afternoon, that's correct."
plain en-gb-x-rp+edward 83-s1-goahead.wav "Yes, go ahead and book it please."
plain en-gb-x-rp+edward 83-s1-goahead2.wav "Yes please, book it."

plain en-us+caleb 84-s2-request.wav "Please book a service visit on pump P 200 for Friday at ten in the morning."
plain en-us+caleb 84-s2-check.wav "Yes, that's right, P 200 on Friday at ten."
plain en-us+caleb 84-s2-check2.wav "Yes, Friday at ten in the morning is correct."
plain en-us+caleb 84-s2-correct.wav "Oh, actually, half past eleven would suit us better than ten o'clock."
plain en-us+caleb 84-s2-check3.wav "Yes, half past eleven, that's right."
plain en-us+caleb 84-s2-check4.wav "Yes, the time is half past eleven."
plain en-us+caleb 84-s2-goahead.wav "Yes, that's fine now, please book it."
plain en-us+caleb 84-s2-goahead2.wav "Yes please, go ahead."

plain en-gb-scotland+david 85-s3-request.wav "Hello, could someone come out to the pump we have in Utrecht on Wednesday after lunch?"
plain en-gb-scotland+david 85-s3-check.wav "Yes, that's right, the Utrecht pump on Wednesday afternoon."
plain en-gb-scotland+david 85-s3-check2.wav "Yes, the one in Utrecht, Wednesday afternoon."
plain en-gb-scotland+david 85-s3-goahead.wav "Yes, that all sounds good, go ahead."
plain en-gb-scotland+david 85-s3-goahead2.wav "Yes please, book it."

plain en-us-nyc+Mike 86-s4-request.wav "I'd like to book a service for P 100 on Monday afternoon."
plain en-us-nyc+Mike 86-s4-check.wav "Yes, that's right, P 100 on Monday afternoon."
plain en-us-nyc+Mike 86-s4-check2.wav "Yes, Monday in the afternoon is correct."
plain en-us-nyc+Mike 86-s4-correct.wav "Oh hang on, wrong pump. It's P 200 that needs the visit, not P 100."
plain en-us-nyc+Mike 86-s4-check3.wav "Yes, that's right, it's P 200."
plain en-us-nyc+Mike 86-s4-check4.wav "Yes, pump P 200 is the one."
plain en-us-nyc+Mike 86-s4-goahead.wav "Yes, that's correct now, go ahead."
plain en-us-nyc+Mike 86-s4-goahead2.wav "Yes please, book it."

# 87-89: written blind (2026-12-05, the third round), each in its writer's espeak-ng voice
# at 160 words a minute.
rated en-us+m3 160 87-r1-t01.wav "Hi there, I need a technician to come and look at pump P-200 on Friday morning, please."
rated en-us+m3 160 87-r1-t02.wav "Yes."
rated en-us+m3 160 87-r1-t03.wav "Hang on, sorry, I got that wrong. It's the pump in Rotterdam that's playing up, not the Utrecht one."
rated en-us+m3 160 87-r1-t04.wav "Yes, that's right, the one in Rotterdam."
rated en-us+m3 160 87-r1-t05.wav "Yes."
rated en-us+m3 160 87-r1-t06.wav "Great, yes, please book that."
rated en-us+m3 160 87-r1-t07.wav "Yes, please."
rated en-gb-x-rp+benjamin 160 88-r2-t01.wav "Hello, we need somebody to service pump P-200 on Wednesday the ninth, in the morning if possible."
rated en-gb-x-rp+benjamin 160 88-r2-t02.wav "Yes."
rated en-gb-x-rp+benjamin 160 88-r2-t03.wav "Oh, sorry, I've just remembered there's a big delivery coming that morning. Can we switch it to the afternoon instead?"
rated en-gb-x-rp+benjamin 160 88-r2-t04.wav "Yes."
rated en-gb-x-rp+benjamin 160 88-r2-t05.wav "Yes, the afternoon is much better, thanks. Go ahead."
rated en-gb-x-rp+benjamin 160 88-r2-t06.wav "Yes, please."
rated en-us-nyc+rob 160 89-r3-t01.wav "Hi, we've got an engineer coming to the Rotterdam pump this Thursday morning. Could we push that back to Tuesday next week?"
rated en-us-nyc+rob 160 89-r3-t02.wav "Yes."
rated en-us-nyc+rob 160 89-r3-t03.wav "Sorry, no, Tuesday won't work either. Let's go for Wednesday next week instead."
rated en-us-nyc+rob 160 89-r3-t04.wav "Yes."
rated en-us-nyc+rob 160 89-r3-t05.wav "Yes, please go ahead and move it."
rated en-us-nyc+rob 160 89-r3-t06.wav "Yes, please."

# 90: a 1.2 s pause after "on" inside one sentence (2026-12-06, issue 14: the end of a turn
# waits for a caller who stops on a closed-class word).
ssml en-gb 160 90-paused-on.wav '<speak>Could you send an engineer out to look at our compressor on <break time="1200ms"/> Thursday morning, please?</speak>'
rated en-gb 160 90-yes.wav "Yes, go ahead."

ls -l "$OUT"/*.wav
