#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# relay_listen.pl LISTEN_PORT TARGET_PORT: a TCP relay on 127.0.0.1 for the
# multipath test, one path's "cable". Accepts on LISTEN_PORT and runs
# tests/interop/relay.pl TARGET_PORT for each connection (that connection
# as its stdin/stdout). SIGTERM cuts the cable: it closes the listener and
# kills every relay, so each connection through it drops at once and new
# ones are refused. SIGUSR1 stops every relay (connections stay up but
# carry nothing), SIGUSR2 resumes them. Prints "ready" once listening,
# "accepted" per connection.
use strict;
use warnings;
use IO::Socket::INET;
use File::Basename qw(dirname);

my ($lport, $tport) = @ARGV;
die "usage: relay_listen.pl LISTEN_PORT TARGET_PORT\n"
	unless defined $tport && $lport =~ /^\d+$/ && $tport =~ /^\d+$/;
my $relay = dirname(__FILE__) . '/../interop/relay.pl';
my $l = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $lport,
	Listen => 64, ReuseAddr => 1) or die "listen: $!\n";
my %kids;
$SIG{TERM} = sub { kill 'KILL', keys %kids; exit 0 };
# a cable that stays plugged in but carries nothing (stall), and back
$SIG{USR1} = sub { kill 'STOP', keys %kids };
$SIG{USR2} = sub { kill 'CONT', keys %kids };
$SIG{CHLD} = sub { while ((my $p = waitpid(-1, 1)) > 0) { delete $kids{$p} } };
print "ready\n";
STDOUT->flush;
while (1) {
	my $c = $l->accept or next;
	print "accepted\n";
	STDOUT->flush;
	my $pid = fork;
	if (defined $pid && !$pid) {
		open(STDIN, '<&', $c) or exit 1;
		open(STDOUT, '>&', $c) or exit 1;
		exec('perl', $relay, $tport) or exit 1;
	}
	$kids{$pid} = 1 if $pid;
	close $c;
}
